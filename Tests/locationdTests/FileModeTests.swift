import Foundation
import LocationTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Every file the daemon makes in its data directory is 0600 (the directories 0700),
/// SQLite's `-wal` and `-shm` included, whatever the umask it was started with.
@Suite(.timeLimit(.minutes(5)))
struct FileModeTests {
    /// The data directory's entries, recursively, with their mode and type (`lstat`).
    private static func entries(in directory: String) -> [(path: String, mode: mode_t)] {
        let names = FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []
        return names.sorted().compactMap { name in
            var info = stat()
            guard lstat(directory + "/" + name, &info) == 0 else { return nil }
            return (name, info.st_mode)
        }
    }

    /// What is not private: files and sockets not 0600, directories not 0700.
    private static func openEntries(in directory: String) -> [String] {
        entries(in: directory).compactMap { name, mode in
            let wanted: mode_t = mode & S_IFMT == S_IFDIR ? 0o700 : 0o600
            return mode & 0o7777 == wanted ? nil : "\(name) \(String(mode & 0o7777, radix: 8))"
        }
    }

    @Test(arguments: ["000", "022"])
    func everyFileTheDaemonMakesIsPrivate(umask: String) async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        // A region around the walk's start (an enter to store), and a broker nobody
        // runs (every message goes to the outbox).
        let regions = try RegionCommandTests.regionFile(
            #"{"type":"Feature","id":"start","properties":{"name":"Start","radius":5000},"geometry":{"type":"Point","coordinates":[13.3501,52.5145]}}"#
        )
        let config = directory.path + "/locationd.conf"
        try """
        regions = \(regions)
        mqtt = mqtt://127.0.0.1:\(try GPSFake.freeLoopbackPort())
        mqtt-topic = owntracks/test/modes

        """.write(toFile: config, atomically: true, encoding: .utf8)
        let process = try ChildProcess(
            "/bin/sh",
            [
                "-c", "umask \(umask) && exec \"$0\" \"$@\"", locationdBinary().path, "run", "--data-dir", data,
                "--source", "replay", Repository.sampleTrack("walk.nmea"), "--record", "--http", "127.0.0.1:0",
                "--config", config,
            ])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let expected = [
            "tiles.sqlite", "tiles.sqlite-wal", "lastFix.json", "regionMembership.json", "mqtt-outbox.sqlite",
            "mqtt-outbox.sqlite-wal", "timeline.sqlite", "timeline.sqlite-wal", "locationd.lock", "control.sock",
            "tracks",
        ]
        try await waitUntil(seconds: 40) {
            let names = Set(Self.entries(in: data).map(\.path))
            return expected.allSatisfy(names.contains) && names.contains { $0.hasPrefix("tracks/") }
        }
        #expect(Self.openEntries(in: data) == [], "umask \(umask)")
        kill(process.processIdentifier, SIGTERM)
        try await waitUntil(seconds: 20) { !process.isRunning }
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(Self.openEntries(in: data) == [], "umask \(umask), after the stop")
    }
}
