import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationState
@testable import LocationTimeline
@testable import locationd

/// The timeline in a real daemon: a replayed track, a real SIGKILL, a restart, and the
/// `timeline` command reading and rebuilding what it stored.
@Suite(.timeLimit(.minutes(5)))
struct TimelineDaemonTests {
    /// Stays of 6 s and hops of 120 m, for thresholds of 3 s and 30 m.
    static func track() -> GeneratedTrack {
        var track = GeneratedTrack(seed: 4)
        for _ in 0..<5 {
            track.exactStay(duration: 6, leavingBy: 0)
            track.move(metres: 120, speed: 30)
        }
        track.stay(seconds: 600)
        return track
    }

    /// Closed stays are stored as they close: a SIGKILL loses none, the restarted daemon
    /// goes on from the stored state, and `timeline --json` lists them.
    @Test func sigkillLosesNoClosedStay() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let gpx = directory.path + "/track.gpx"
        try Self.track().gpx.write(toFile: gpx, atomically: true, encoding: .utf8)
        let config = directory.path + "/locationd.conf"
        try """
        source = replay \(gpx)
        record = true
        stay-distance = 30
        stay-duration = 3
        stay-gap = 60
        max-speed = 1000
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let store = URL(fileURLWithPath: data + "/timeline.sqlite")
        @Sendable func closedStays() -> [Stay] {
            let entries = (try? TimelineStore.openReadOnly(at: store).entries(from: .distantPast, to: .distantFuture))
            return (entries ?? []).compactMap { if case .stay(let stay) = $0, !stay.isOpen { stay } else { nil } }
        }
        let daemon = try await DaemonProcess(dataDirectory: data, arguments: ["--config", config])
        try await waitUntil(seconds: 60) { closedStays().count >= 2 }
        let status = try #require(try ControlClient.askPatiently("?STATUS;", socketPath: daemon.socketPath))
        #expect(status.contains(#""motion":""#), "\(status)")
        let seen = closedStays()
        _ = try await daemon.stop(with: SIGKILL)
        let afterKill = closedStays()
        #expect(Set(seen.map(\.start)).isSubset(of: Set(afterKill.map(\.start))))
        let mode = try FileManager.default.attributesOfItem(atPath: store.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // The restarted daemon takes the stored state up again (its first fix repeats the
        // track's first time: ignored as out of order, nothing is lost or doubled).
        let again = try await DaemonProcess(dataDirectory: data, arguments: ["--config", config])
        _ = try await again.stop()
        #expect(Set(afterKill.map(\.start)).isSubset(of: Set(closedStays().map(\.start))))

        let listed = try await runLocationd([
            "timeline", "--data-dir", data, "--from", "2026-11-18", "--to", "2026-11-19", "--json",
        ])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.split(separator: "\n").filter { $0.contains(#""class":"STAY""#) }.count >= seen.count)

        // Rebuilt from the recorded track, the timeline holds the stays again.
        let rebuilt = try await runLocationd([
            "timeline", "--rebuild", "--data-dir", data, "--stay-distance", "30", "--stay-duration", "3",
            "--stay-gap", "60", "--max-speed", "1000",
        ])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        #expect(rebuilt.stderr.contains("rebuilt from 1 recorded days"), "\(rebuilt.stderr)")
        #expect(closedStays().count >= seen.count)
    }

    /// The day's timeline as GPX validates against the GPX 1.1 schema.
    @Test func gpxValidates() async throws {
        let directory = try TemporaryDirectory()
        let logger = Logger(label: "test")
        let recorder = TimelineRecorder(
            configuration: MotionConfiguration(),
            store: try TimelineStore(directory: URL(fileURLWithPath: directory.path), logger: logger), logger: logger)
        var track = GeneratedTrack(seed: 8)
        for _ in 0..<3 {
            track.stay(seconds: 900)
            track.move(metres: 3000, speed: 15)
        }
        for point in track.points {
            recorder.ingest(
                Location(
                    time: Date(timeIntervalSince1970: point.time), mode: .threeD, lat: point.latitude,
                    lon: point.longitude, source: .replay))
        }
        try recorder.close()
        let run = try await runLocationd(["timeline", "2026-11-18", "--gpx", "--data-dir", directory.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("<wpt ") && run.stdout.contains("<rte>"))
        let file = directory.path + "/timeline.gpx"
        try run.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let schema = Repository.path("Tests/Fixtures/gpx-1.1.xsd")
        let lint = try await runProgram("/usr/bin/xmllint", ["--noout", "--schema", schema, file])
        #expect(lint.status == 0, "\(lint.stderr)")
        let table = try await runLocationd(["timeline", "2026-11-18", "--data-dir", directory.path])
        #expect(table.stdout.contains("  stay  ") && table.stdout.contains("  trip  "), "\(table.stdout)")
    }

    /// No timeline yet, a bad day: one line, 66 and 64.
    @Test func missingTimelineAndBadDay() async throws {
        let directory = try TemporaryDirectory()
        let missing = try await runLocationd(["timeline", "--data-dir", directory.path])
        #expect(missing.status == 66 && missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")
        let bad = try await runLocationd(["timeline", "2026-13-01", "--data-dir", directory.path])
        #expect(bad.status == 64 && bad.stderr.split(separator: "\n").count == 1, "\(bad.stderr)")
    }
}
