import Foundation
import LocationTestSupport
import Testing

/// libmosquitto and libxml2 are loaded at run time, only when MQTT is configured or a
/// GPX file is read: the binary does not name them, and a daemon without MQTT never maps them.
@Suite(.timeLimit(.minutes(10))) struct LibraryLoadingTests {
    /// The shared libraries a binary names (`DT_NEEDED`), from `readelf -d`.
    private static func neededLibraries(_ path: String) async throws -> [String] {
        let run = try await runProgram("/usr/bin/readelf", ["-d", path])
        try #require(run.status == 0, "readelf: \(run.stderr)")
        return run.stdout.split(separator: "\n").filter { $0.contains("(NEEDED)") }.map { String($0) }
    }

    /// The files a process maps, from `/proc/PID/maps` (read to its end: the kernel
    /// gives the file a size of 0).
    private static func mappedFiles(_ pid: pid_t) throws -> String {
        let file = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps"))
        defer { try? file.close() }
        return String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
    }

    @Test func theBinaryDoesNotNameLibmosquittoOrLibxml2() async throws {
        let needed = try await Self.neededLibraries(locationdBinary().path)
        #expect(needed.contains { $0.contains("libgps") }, "readelf found no NEEDED entry at all: \(needed)")
        #expect(!needed.contains { $0.contains("libmosquitto") }, "\(needed)")
        #expect(!needed.contains { $0.contains("libxml2") }, "\(needed)")
    }

    @Test func libmosquittoIsMappedOnlyWithMQTT() async throws {
        let directory = try TemporaryDirectory()
        let plain = try await DaemonProcess(
            dataDirectory: directory.path + "/plain", arguments: ["--source", "simulated"])
        let plainMaps = try Self.mappedFiles(plain.process.processIdentifier)
        #expect(plainMaps.contains("libgps.so"), "not the daemon's mappings: \(plainMaps.prefix(500))")
        #expect(!plainMaps.contains("libmosquitto"))
        #expect(!plainMaps.contains("libcrypto"))
        #expect(!plainMaps.contains("libxml2"))
        #expect(try await plain.stop().status == 0)

        let broker = try await Mosquitto()
        let publishing = try await DaemonProcess(
            dataDirectory: directory.path + "/mqtt",
            arguments: ["--source", "simulated", "--mqtt", "mqtt://127.0.0.1:\(broker.port)"])
        #expect(try Self.mappedFiles(publishing.process.processIdentifier).contains("libmosquitto.so"))
        #expect(try await publishing.stop().status == 0)
    }
}
