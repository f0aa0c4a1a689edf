import Foundation
import LocationFormats
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// `locationd run` and `locationd last` as real processes, talking over the real socket.
@Suite(.timeLimit(.minutes(5)))
struct DaemonTests {
    /// Parses one JSON object line.
    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func simulatedDaemonAnswersLastWatchAndStatusThenStopsOnSIGTERM() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"])
        let permissions = try FileManager.default.attributesOfItem(atPath: daemon.socketPath)[.posixPermissions]
        #expect(permissions as? Int == 0o600)
        let directoryPermissions = try FileManager.default.attributesOfItem(atPath: daemon.dataDirectory)[
            .posixPermissions]
        #expect(directoryPermissions as? Int == 0o700)

        let watcher = try connectRaw(daemon.socketPath)
        try watcher.write(contentsOf: Data("?WATCH;\n".utf8))
        #expect(await readLine(watcher) == #"{"class":"WATCH","enable":true}"#)
        var times: [String] = []
        while times.count < 3 {
            let fix = try Self.object(try #require(await readLine(watcher)))
            #expect(fix["class"] as? String == "TPV")
            #expect(fix["source"] as? String == "simulated")
            times.append(try #require(fix["time"] as? String))
        }
        #expect(times == times.sorted() && Set(times).count == 3)

        let last = try await runLocationd(["last", "--data-dir", daemon.dataDirectory, "--json"])
        #expect(last.status == 0)
        let answer = try Self.object(last.stdout)
        #expect(answer["state"] as? String == "live")
        #expect(answer["source"] as? String == "simulated")
        #expect((answer["age"] as? Double).map { $0 >= 0 && $0 < 5 } == true)

        let status = try Self.object(
            try #require(try ControlClient.askPatiently("?STATUS;", socketPath: daemon.socketPath)))
        #expect(status["source"] as? String == "simulated")
        #expect(status["state"] as? String == "live")
        #expect((status["fixes"] as? Int).map { $0 >= 3 } == true)

        let newest = try Self.object(
            try #require(try ControlClient.askPatiently("?LAST;", socketPath: daemon.socketPath)))
        let stopped = try await daemon.stop(with: SIGTERM)
        #expect(stopped.status == 0)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        // Fixes sent before the stop may still be queued; then the stream ends.
        var queued = 0
        while let line = await readLine(watcher) {
            #expect(line.hasPrefix(#"{"class":"TPV""#))
            queued += 1
            if queued > 100 { break }
        }
        #expect(queued <= 100, "the watch did not end when the daemon stopped")

        // SIGTERM flushed the store: the fix on disk is the last one the daemon held (or newer).
        let stored = try JSONDecoder().decode(
            Location.self, from: Data(contentsOf: URL(fileURLWithPath: daemon.dataDirectory + "/lastFix.json")))
        let newestTime = try #require(newest["time"] as? String)
        let storedTime = try #require(stored.time)
        #expect(storedTime >= UTCCalendar.parseISO8601(newestTime)!)
        let restored = try await runLocationd(["last", "--data-dir", daemon.dataDirectory, "--json"])
        #expect(restored.status == 3)
        #expect(restored.stderr.contains("no daemon answers"))
        let answer2 = try Self.object(restored.stdout)
        #expect(answer2["source"] as? String == "restored")
        #expect(answer2["state"] as? String == "restored")
        #expect(abs(try #require(answer2["lat"] as? Double) - stored.lat!) < 1e-8)

        // A new daemon starts from the stored fix, marked restored, until its source delivers.
        let again = try await DaemonProcess(
            dataDirectory: daemon.dataDirectory, arguments: ["--source", "gpsd", "--gpsd", "127.0.0.1:1"])
        let status2 = try Self.object(
            try #require(try ControlClient.askPatiently("?STATUS;", socketPath: again.socketPath)))
        #expect(status2["state"] as? String == "restored" || status2["state"] as? String == "lost")
        let last2 = try Self.object(
            try #require(try ControlClient.askPatiently("?LAST;", socketPath: again.socketPath)))
        #expect(last2["state"] as? String == "restored")
        #expect(abs(try #require(last2["lat"] as? Double) - stored.lat!) < 1e-8)
        #expect(try await again.stop().status == 0)
    }

    @Test func sigintStopsTooAndASecondDaemonOnTheSameDirectoryIsRefused() async throws {
        let directory = try TemporaryDirectory()
        let first = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"])
        let second = try await runLocationd([
            "run", "--data-dir", first.dataDirectory, "--source", "simulated", "--socket",
            directory.path + "/other.sock",
        ])
        #expect(second.status == 69)
        #expect(second.stderr.contains("another locationd (pid \(first.process.processIdentifier)) is already running"))
        #expect(try ControlClient.askPatiently("?STATUS;", socketPath: first.socketPath) != nil)
        let stopped = try await first.stop(with: SIGINT)
        #expect(stopped.status == 0)
    }

    @Test func lastWithoutDaemonOrStoreSaysNoFix() async throws {
        let directory = try TemporaryDirectory()
        let run = try await runLocationd(["last", "--data-dir", directory.path])
        #expect(run.status == 4)
        #expect(run.stdout == "no fix known\n")
        #expect(run.stderr.contains("no daemon answers"))
    }

    @Test(arguments: [
        (["run", "--bogus"], Int32(64), "Unknown option"),
        (["run", "--gpsd", "host:99999"], Int32(64), "gpsd port must be a number"),
        (["run", "--source", "replay"], Int32(64), "'replay' needs one file"),
        (["run", "--zooms", "30"], Int32(64), "zooms must be numbers from 0 to 22"),
        (["run", "--freshness-timeout", "0.0005"], Int32(64), "freshness-timeout must be a number of seconds"),
        (["run", "--freshness-timeout", "1e16"], Int32(64), "freshness-timeout must be a number of seconds"),
        (["run", "--config", "/nonexistent/locationd.conf"], Int32(66), "no such file"),
        (
            ["run", "--data-dir", "/proc/locationd"], Int32(73),
            "/proc/locationd: cannot write: cannot create the directory"
        ),
        (["last", "--json", "--geojson"], Int32(64), "exclude each other"),
    ])
    func badCommandLinesGetOneLineAndASysexitsCode(arguments: [String], status: Int32, message: String) async throws {
        let run = try await runLocationd(arguments)
        #expect(run.status == status)
        #expect(run.stderr.contains(message), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count <= 3, "\(run.stderr)")
    }

    @Test func gpsdDaemonEndsOnTheTracksLastFix() async throws {
        let track = TestTrack(epochs: 12)
        let log = try track.write()
        // A proprietary sentence after the track, which gpsfake is never let go of: its
        // gpsd keeps the device, so the track's last fix stays current (freshness 300 s)
        // however long a loaded machine takes to bring the late watcher.
        let handle = try FileHandle(forWritingTo: log)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("$PXXXX,1*\(NMEAChecksum.hex("PXXXX,1"))\r\n".utf8))
        try handle.close()
        // What the track's last fix is, known before the feed starts: under load a replay
        // run in between can take longer than any freshness timeout.
        let expected = try await runLocationd(["replay", log.path, "--format", "json", "--speed", "max"])
        let gpsfake = try GPSFake(log: log, once: true)
        defer { gpsfake.stop() }
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data",
            arguments: ["--source", "gpsd", "--gpsd", "127.0.0.1:\(gpsfake.port)", "--freshness-timeout", "300"])
        let watcher = try connectRaw(daemon.socketPath)
        try watcher.write(contentsOf: Data("?WATCH;".utf8))
        _ = await readLine(watcher)
        try await gpsfake.startFeeding(holdingBack: 2)
        let expectedLast = try Self.object(try #require(expected.stdout.split(separator: "\n").last.map(String.init)))
        var seen: [String: Any] = [:]
        while seen["time"] as? String != expectedLast["time"] as? String {
            seen = try Self.object(try #require(await readLine(watcher), "the watch ended before the track's last fix"))
        }
        // A watcher that comes after the track ended gets the current fix first.
        let late = try connectRaw(daemon.socketPath)
        try late.write(contentsOf: Data("?WATCH;".utf8))
        let answer = await readLine(late)
        #expect(answer == #"{"class":"WATCH","enable":true}"#, "the daemon said: \(daemon.stderr)")
        let current = try Self.object(try #require(await readLine(late)))
        #expect(current["time"] as? String == expectedLast["time"] as? String)
        let last = try await runLocationd(["last", "--data-dir", daemon.dataDirectory, "--json"])
        let stored = try Self.object(last.stdout)
        #expect(stored["source"] as? String == "gpsd")
        #expect(stored["time"] as? String == expectedLast["time"] as? String)
        for field in ["lat", "lon"] {
            let ours = try #require(stored[field] as? Double)
            let replayed = try #require(expectedLast[field] as? Double)
            #expect(abs(ours - replayed) < 1e-7, "\(field)")
        }
        #expect(try await daemon.stop().status == 0)
    }
}
