import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationState
@testable import LocationTimeline
@testable import locationd

/// Fixes dated far from their neighbours in a real daemon: a fix dated 2099 costs one fix,
/// is logged once and counted in the status, and a timeline saved with a last fix in 2099
/// does not stop a restarted daemon.
@Suite(.timeLimit(.minutes(5)))
struct TimelineMisdatedDaemonTests {
    /// 2099-01-01T00:00:00Z.
    static let future = 4_070_908_800.0

    /// A configuration replaying `gpx` with thresholds for `TimelineDaemonTests.track()`.
    static func configuration(_ directory: borrowing TemporaryDirectory, gpx: String) throws -> String {
        let config = directory.path + "/locationd.conf"
        try """
        source = replay \(gpx)
        stay-distance = 30
        stay-duration = 3
        stay-gap = 60
        max-speed = 1000
        """.write(toFile: config, atomically: true, encoding: .utf8)
        return config
    }

    /// The closed stays in the data directory's timeline.
    static func closedStays(_ data: String) -> [Stay] {
        let store = URL(fileURLWithPath: data + "/timeline.sqlite")
        let entries = (try? TimelineStore.openReadOnly(at: store).entries(from: .distantPast, to: .distantFuture))
        return (entries ?? []).compactMap { if case .stay(let stay) = $0, !stay.isOpen { stay } else { nil } }
    }

    /// One fix dated 2099 first and one amid the track: stays are recorded, the status counts
    /// the misdated fixes, and the log says it once.
    @Test func futureFixesDoNotStopTheTimeline() async throws {
        let directory = try TemporaryDirectory()
        var track = GeneratedTrack(seed: 4)
        track.misdated(Self.future)
        for index in 0..<5 {
            track.exactStay(duration: 6, leavingBy: 0)
            if index == 2 { track.misdated(Self.future + 60) }
            track.move(metres: 120, speed: 30)
        }
        track.stay(seconds: 600)
        let gpx = directory.path + "/track.gpx"
        try track.gpx.write(toFile: gpx, atomically: true, encoding: .utf8)
        let data = directory.path + "/data"
        let daemon = try await DaemonProcess(
            dataDirectory: data, arguments: ["--config", try Self.configuration(directory, gpx: gpx)])
        try await waitUntil(seconds: 90) { Self.closedStays(data).count >= 4 }
        let status = try #require(try ControlClient.askPatiently("?STATUS;", socketPath: daemon.socketPath))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])
        let ignored = try #require(object["ignoredFixes"] as? [String: Int], "\(status)")
        #expect((ignored["misdated"] ?? 0) >= 3, "\(status)")
        #expect(object["motion"] as? String != "unknown", "\(status)")
        _ = try await daemon.stop()
        let lines = daemon.stderr.split(separator: "\n").filter { $0.contains("misdated") }
        #expect(lines.count == 1, "\(daemon.stderr)")
    }

    /// A timeline saved with its last fix in 2099 (as a locationd before this rule stored
    /// it): the restarted daemon records stays again, after a log line.
    @Test func savedFutureStateDoesNotStopARestartedDaemon() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        var saved = MotionTracker(configuration: MotionConfiguration(stayDistance: 30, stayDuration: 3, stayGap: 60))
        for second in 0..<3 {
            _ = saved.ingest(
                Location(
                    time: Date(timeIntervalSince1970: Self.future + Double(second)), mode: .threeD, lat: 47.37,
                    lon: 8.54, source: .gpsd))
        }
        try TimelineStore(directory: URL(fileURLWithPath: data), logger: Logger(label: "test"))
            .record([], tracker: saved)
        let gpx = directory.path + "/track.gpx"
        try TimelineDaemonTests.track().gpx.write(toFile: gpx, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcess(
            dataDirectory: data, arguments: ["--config", try Self.configuration(directory, gpx: gpx)])
        try await waitUntil(seconds: 90) { Self.closedStays(data).count >= 2 }
        _ = try await daemon.stop()
        #expect(daemon.stderr.contains("2099-01-01T00:00:02.000Z"), "\(daemon.stderr)")
    }
}
