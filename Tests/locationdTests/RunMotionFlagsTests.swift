import Foundation
import LocationState
import LocationTestSupport
import LocationTimeline
import Testing

@testable import locationd

/// `locationd run --stay-distance/--stay-duration/--stay-gap/--max-speed`: checked as the
/// configuration keys are, and above the environment and the file, in a real daemon.
@Suite(.timeLimit(.minutes(5)))
struct RunMotionFlagsTests {
    /// A flag beats the environment, which beats the file, for each threshold.
    @Test func flagsBeatTheEnvironmentWhichBeatsTheFile() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/locationd.conf"
        try "stay-distance = 50\nstay-duration = 3000\nstay-gap = 1200\nmax-speed = 70\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        let run = try RunCommand.parse(["--config", file, "--stay-duration", "5", "--max-speed", "40"])
        var source = run.configurationSource
        source.environment = ["LOCATIOND_STAY_DURATION": "2000", "LOCATIOND_STAY_DISTANCE": "60"]
        let motion = try source.resolve().motion
        #expect(motion == MotionConfiguration(stayDistance: 60, stayDuration: 5, stayGap: 1200, maxSpeed: 40))
    }

    /// A short `--stay-duration` makes the stop of a replayed drive and park show in
    /// `?STATUS;` within seconds, over a file and an environment that ask for more than half
    /// an hour; SIGHUP then names the changed file setting the flag does not hold, as taking
    /// effect at restart.
    @Test func shortStayDurationMakesTheStopAppear() async throws {
        let directory = try TemporaryDirectory()
        let track = ParkedTrack([.drive(metres: 200, speed: 25), .parked(seconds: 900)], leadIn: 0)
        let log = try track.write(name: "run-stay-duration")
        defer { try? FileManager.default.removeItem(at: log) }
        let file = directory.path + "/locationd.conf"
        try "stay-duration = 3000\n".write(toFile: file, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data",
            arguments: ["--source", "replay", log.path, "--config", file, "--stay-duration", "5"],
            environment: ["LOCATIOND_STAY_DURATION": "2000"])
        @Sendable func status() -> String {
            ((try? ControlClient.ask("?STATUS;", socketPath: daemon.socketPath)) ?? nil) ?? ""
        }
        try await waitUntil(seconds: 60) { status().contains(#""motion":"stopped""#) }
        let status = status()
        // Stopped since a fix of the track's first minute: the 5 s rule, not 2000 s or 3000 s.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
        let since = try #require((object["stoppedSince"] as? String).flatMap { UTCCalendar.parseISO8601($0) })
        let first = try #require(track.fixes.first?.time)
        #expect(since >= first && since < first.addingTimeInterval(60), "\(status)")

        try "stay-duration = 3000\nstay-gap = 1200\n".write(toFile: file, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try await waitUntil(seconds: 20) {
            daemon.stderr.contains("SIGHUP: configuration read again; stay-gap take effect at restart")
        }
        #expect(try await daemon.stop().status == 0)
    }

    /// A threshold that is 0, negative, not a number or absurd: one line naming the flag and
    /// the value, exit 64, nothing started or written.
    @Test(arguments: [
        ("--stay-distance", "0"), ("--stay-distance", "-5"), ("--stay-distance", "nan"), ("--stay-distance", "1e12"),
        ("--stay-duration", "0"), ("--stay-duration", "five"), ("--stay-gap", "inf"), ("--stay-gap", "-900"),
        ("--max-speed", "-1"), ("--max-speed", "1e9"),
    ])
    func badThresholdIsRefused(flag: String, value: String) async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let run = try await runLocationd(["run", "--data-dir", data, "--source", "simulated", flag, value])
        #expect(run.status == 64)
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.contains(flag) && run.stderr.contains("'\(value)'"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: data))
    }
}
