import Foundation
import LocationState
import LocationTestSupport
import LocationTimeline
import Logging
import Testing

@testable import locationd

/// A timeline answer is bounded before anything is read: a range holding more stays and
/// trips than one answer holds is refused with the count, over HTTP and on the control
/// socket, and the daemon builds no answer for it.
@Suite(.timeLimit(.minutes(5)))
struct TimelineAnswerBoundTests {
    static let day = Date(timeIntervalSince1970: 1_794_960_000)

    /// A data directory whose timeline holds `count` short stays on ``day``.
    static func store(stays count: Int, in directory: String) throws {
        let store = try TimelineStore(directory: URL(fileURLWithPath: directory), logger: Logger(label: "test"))
        let stays = (0..<count).map { index in
            TimelineEvent.stayClosed(
                Stay(
                    start: day.addingTimeInterval(Double(index)), end: day.addingTimeInterval(Double(index) + 0.5),
                    latitude: 48.1, longitude: 11.5, radius: 10, fixes: 2))
        }
        try store.record(stays, tracker: nil)
    }

    @Test func aRangeBeyondTheBoundIsRefusedWithItsCount() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let count = ControlAnswers.maxTimelineEntries + 1
        try Self.store(stays: count, in: data)
        let daemon = try await DaemonProcess(dataDirectory: data, arguments: ["--source", "simulated"])
        let client = HTTPTestClient(port: try await daemon.httpPort())
        let dayText = String(UTCCalendar.iso8601(Self.day).prefix(10))
        let message =
            "the range holds \(count) stays and trips, more than the 20000 one answer holds; ask for a shorter one"

        let answer = try await client.get("/api/v1/timeline?day=\(dayText)")
        #expect(answer.status == 400)
        #expect(try answer.object()["error"] as? String == message)

        let line = try ControlClient.askPatiently(#"?TIMELINE={"day":"\#(dayText)"};"#, socketPath: daemon.socketPath)
        #expect(line == ControlReply.error(message))

        // Within the bound, the whole day.
        let hour = try await client.get(
            "/api/v1/timeline?from=\(dayText)T00:00:00Z&to=\(dayText)T01:00:00Z")
        #expect(hour.status == 200)
        #expect((try hour.object()["entries"] as? [Any])?.count == 3600)
        #expect(try await daemon.stop().status == 0)
    }
}
