import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

#if canImport(Glibc)
    import Glibc
#endif

/// What a careless user or a hostile file hands locationd: a FIFO or a device as the
/// configuration, a tile log that is a link, secrets others may read, names with control
/// characters, a malformed `?WATCH=`, a byte order mark, a compressed track.
@Suite(.timeLimit(.minutes(5)))
struct HardeningInputTests {
    @Test(arguments: ["fifo", "/dev/zero"])
    func aConfigurationThatIsNoFileIsRefusedAtOnce(kind: String) async throws {
        let directory = try TemporaryDirectory()
        var config = kind
        if kind == "fifo" {
            config = directory.path + "/locationd.conf"
            #expect(mkfifo(config, 0o600) == 0)
        }
        let run = try await runLocationdBounded([
            "run", "--data-dir", directory.path + "/data", "--source", "simulated", "--config", config,
        ])
        #expect(run.status == 66, "\(run.stderr)")
        #expect(run.stderr.contains("not a regular file"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }

    @Test(arguments: ["tiles.sqlite", "tiles.sqlite-wal", "tiles.sqlite-shm"])
    func aReplayIntoATileLogThatIsALinkFails(name: String) async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let victim = directory.path + "/victim"
        #expect(symlink(victim, data + "/" + name) == 0)
        let run = try await runLocationd([
            "replay", Repository.sampleTrack("walk.nmea"), "--speed", "max", "--data-dir", data,
        ])
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("\(name): is a symbolic link"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: victim))
    }

    /// A token file every user may read: used, with one warning naming the file, its mode and
    /// what makes it private (never the secret). A password file readable by its group,
    /// which holds nobody else, and private files: no warning.
    @Test func secretsOthersMayReadAreUsedWithOneWarning() async throws {
        let directory = try TemporaryDirectory()
        let secret = "s3cret-token-0123456789abcdef"
        let token = directory.path + "/token"
        let password = directory.path + "/password"
        try "\(secret)\n".write(toFile: token, atomically: false, encoding: .utf8)
        try "\(secret)\n".write(toFile: password, atomically: false, encoding: .utf8)
        chmod(token, 0o644)
        chmod(password, 0o640)
        // A group that holds nobody else: one without an entry at all, when the tests may
        // give the file one (as root); else the tests' own.
        if getuid() == 0 { chown(password, 0, 3_999_999) }
        let broker = try GPSFake.freeLoopbackPort()
        let config = directory.path + "/locationd.conf"
        try """
        http-token-file = \(token)
        mqtt = mqtt://127.0.0.1:\(broker)
        mqtt-password-file = \(password)

        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated", "--config", config])
        _ = try await daemon.httpPort()
        let log = daemon.stderr
        #expect(try await daemon.stop().status == 0)
        let warnings = log.split(separator: "\n").filter { $0.contains("may read the secret") }
        let user = String(cString: getpwuid(geteuid()).pointee.pw_name)
        #expect(warnings.count == 1, "\(log)")
        #expect(
            warnings.first?.hasSuffix(
                "http-token-file \(token) has mode 644: every user may read the secret in it; make it \(user)'s alone: chown \(user) \(token); chmod 600 \(token)"
            ) == true, "\(log)")
        #expect(!log.contains(secret))

        chmod(token, 0o600)
        chmod(password, 0o600)
        let quiet = try await DaemonProcess(
            dataDirectory: directory.path + "/data2", arguments: ["--source", "simulated", "--config", config])
        _ = try await quiet.httpPort()
        #expect(!quiet.stderr.contains("may read the secret"), "\(quiet.stderr)")
        #expect(try await quiet.stop().status == 0)
    }

    /// Region names with NUL, newline and ESC reach the terminal escaped, one line per region.
    @Test func regionNamesReachTheTerminalEscaped() async throws {
        let directory = try TemporaryDirectory()
        let regions = try RegionCommandTests.regionFile(
            #"{"type":"Feature","id":"a\u001b[2J","properties":{"name":"x\u0000y\nforged line\u001b[31m","radius":100},"geometry":{"type":"Point","coordinates":[13.4,52.5]}}"#
        )
        let run = try await runLocationd(["regions", "--data-dir", directory.path, "--regions", regions])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").count == 1, "\(run.stdout)")
        #expect(!run.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "\(run.stdout.debugDescription)")
        #expect(run.stdout.contains(#"a\u{1B}[2J  "x\0y\nforged line\u{1B}[31m""#), "\(run.stdout)")
    }

    /// A NUL byte and bytes that are not UTF-8 in the configuration: one line that shows
    /// them escaped, and says what they are.
    @Test(arguments: [
        (Array("mqtt = mqtt://127.0.0.1\nmqtt-topic = a\u{0}b\n".utf8), "holds a NUL byte", #"'a\0b'"#),
        (Array("zooms = 14\nca".utf8) + [0xE9] + Array("f\u{1B} = 1\n".utf8), "line 2", #"'ca\xE9f\u{1B} = 1'"#),
        (Array("ke\u{0}y = 1\n".utf8), "unknown setting", #"'ke\0y'"#),
    ])
    func badBytesInTheConfigurationAreShownEscaped(bytes: [UInt8], what: String, shown: String) async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path + "/locationd.conf"
        #expect(FileManager.default.createFile(atPath: config, contents: Data(bytes)))
        let run = try await runLocationd([
            "run", "--data-dir", directory.path + "/data", "--source", "simulated", "--config", config,
        ])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(!run.stderr.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0 == "\u{FFFD}" })
        #expect(run.stderr.contains(shown), "\(run.stderr)")
        #expect(!run.stderr.contains("wildcard"), "\(run.stderr)")
        if what != "line 2" {
            #expect(run.stderr.contains(what), "\(run.stderr)")
        } else {
            #expect(run.stderr.contains("locationd.conf:2: not UTF-8 text"), "\(run.stderr)")
        }
    }

    /// `?WATCH=` with an argument that is not a JSON object is answered with an error, as
    /// gpsd does, and starts no stream; a well-formed one still does.
    @Test func aMalformedWatchIsAnErrorNotAStream() async throws {
        let directory = try TemporaryDirectory()
        let fixture = try await ControlFixture(socketPath: directory.path + "/control.sock")
        defer { Task { await fixture.server.stop() } }
        for request in [#"?WATCH={"enable":tru"#, #"?WATCH=[true]"#, #"?WATCH={"enable":"yes"}"#] {
            let answer = try ControlClient.askPatiently(request + ";", socketPath: fixture.server.path)
            #expect(answer?.hasPrefix(#"{"class":"ERROR","message":"Invalid WATCH: "#) == true, "\(answer ?? "")")
        }
        #expect(fixture.watchers.isEmpty)
        let answer = try ControlClient.askPatiently(
            #"?WATCH={"enable":true,"json":true};"#, socketPath: fixture.server.path)
        #expect(answer == #"{"class":"WATCH","enable":true}"#)
    }

    /// A region file saved with a UTF-8 byte order mark is read, as the configuration file is.
    @Test func aRegionFileWithAByteOrderMarkIsRead() async throws {
        let directory = try TemporaryDirectory()
        let path = try temporaryFile(
            [0xEF, 0xBB, 0xBF]
                + Array(
                    #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"home","properties":{"name":"Home","radius":100},"geometry":{"type":"Point","coordinates":[13.4,52.5]}}]}"#
                        .utf8), suffix: ".geojson")
        let run = try await runLocationd(["regions", "--data-dir", directory.path, "--regions", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#"home  "Home"  circle 100 m"#), "\(run.stdout)")
    }

    /// A compressed track is refused in one line with exit 65, not replayed as garbage.
    @Test func aCompressedTrackIsRefusedInOneLine() async throws {
        let directory = try TemporaryDirectory()
        let compressed = directory.path + "/walk.nmea.gz"
        let gzip = try await runProgram(
            "/bin/sh", ["-c", "gzip -c '\(Repository.sampleTrack("walk.nmea"))' > '\(compressed)'"])
        #expect(gzip.status == 0, "\(gzip.stderr)")
        let run = try await runLocationd(["replay", compressed, "--speed", "max"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("is gzip-compressed"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }
}
