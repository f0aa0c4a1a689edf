import Foundation
import LocationState
import LocationTestSupport
import LocationTimeline
import Testing

@testable import locationd

/// `GET /api/v1/timeline` and the `motion`, `stay`, `trip` and `drop` events of `/api/v1/events`,
/// on an in-process server whose timeline the test holds.
@Suite(.timeLimit(.minutes(10)))
struct HTTPTimelineTests {
    static let day = Date(timeIntervalSince1970: 1_794_960_000)
    static let stay = Stay(
        start: day.addingTimeInterval(3600), end: day.addingTimeInterval(7200), latitude: 48.1, longitude: 11.5,
        radius: 12, fixes: 3600)
    static let trip = Trip(
        start: day.addingTimeInterval(7200), end: day.addingTimeInterval(8100), from: stay.start,
        to: day.addingTimeInterval(8100), distance: 12_345.6, maxSpeed: 25, fixes: 900)
    static let open = Stay(
        start: day.addingTimeInterval(8100), end: day.addingTimeInterval(9000), latitude: 48.2, longitude: 11.6,
        radius: 8, fixes: 900, isOpen: true)

    /// A server with a timeline of one closed stay, a trip and an open stay, and `motion`.
    static func server(motion: Motion, directory: borrowing TemporaryDirectory) async throws -> PageServer {
        let page = try await PageServer(directory: directory.path)
        page.motion ~> motion
        page.entries.withLock { $0 = [.stay(stay), .trip(trip), .stay(open)] }
        return page
    }

    @Test func aDaysStaysAndTripsWithItsDistance() async throws {
        let directory = try TemporaryDirectory()
        let server = try await Self.server(motion: .moving, directory: directory)
        defer { server.stop() }
        let client = HTTPTestClient(port: server.port)
        let dayText = String(UTCCalendar.iso8601(Self.day).prefix(10))
        let answer = try await client.get("/api/v1/timeline?day=\(dayText)").object()
        #expect(answer["from"] as? String == UTCCalendar.iso8601(Self.day))
        #expect(answer["distance"] as? Double == 12_345.6)
        let entries = try #require(answer["entries"] as? [[String: Any]])
        #expect(entries.map { $0["class"] as? String } == ["STAY", "TRIP", "STAY"])
        #expect(entries.last?["open"] as? Bool == true)
        #expect(entries[1]["from"] as? String == UTCCalendar.iso8601(Self.stay.start))

        // A range that holds the trip only, then the next day, empty.
        let range = try await client.get(
            "/api/v1/timeline?from=\(UTCCalendar.iso8601(Self.trip.start.addingTimeInterval(60)))&to=\(UTCCalendar.iso8601(Self.trip.end.addingTimeInterval(-60)))"
        ).object()
        #expect((range["entries"] as? [[String: Any]])?.map { $0["class"] as? String } == ["TRIP"])
        let nextDay = UTCCalendar.iso8601(Self.day.addingTimeInterval(86_400)).prefix(10)
        let next = try await client.get("/api/v1/timeline?day=\(nextDay)")
        #expect(next.status == 200)
        #expect((try next.object()["entries"] as? [Any])?.isEmpty == true)
    }

    @Test(arguments: [
        ("/api/v1/timeline?day=2026-13-01", "day must be YYYY-MM-DD"),
        ("/api/v1/timeline?day=yesterday", "day must be YYYY-MM-DD"),
        ("/api/v1/timeline?from=2026-11-02", "give day=YYYY-MM-DD, or both from and to"),
        ("/api/v1/timeline?from=2026-11-02&to=2026-11-01", "from must come before to"),
        ("/api/v1/timeline?from=2026-01-01&to=2026-12-31", "longer than 31 days"),
        ("/api/v1/timeline?from=soon&to=2026-11-01", "from is not a date"),
    ])
    func badRangesAreA400WithOneLine(path: String, message: String) async throws {
        let directory = try TemporaryDirectory()
        let server = try await Self.server(motion: .unknown, directory: directory)
        defer { server.stop() }
        let client = HTTPTestClient(port: server.port)
        let answer = try await client.get(path)
        #expect(answer.status == 400)
        let error = try #require(try answer.object()["error"] as? String)
        #expect(error.contains(message), "\(error)")
    }

    @Test func theEventStreamHasTheMotionThenEachStayAndTrip() async throws {
        let directory = try TemporaryDirectory()
        let server = try await Self.server(motion: .moving, directory: directory)
        defer { server.stop() }
        let (client, motion, events) = (HTTPTestClient(port: server.port), server.motion, server.events)
        let (status, stream) = try await client.open("/api/v1/events")
        #expect(status == 200)
        func next(_ kind: String) async throws -> [String: Any] {
            while true {
                let event = try #require(await readEvent(stream), "the event stream ended")
                guard event.event == kind else { continue }
                return try #require(try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
            }
        }
        #expect(try await next("motion")["motion"] as? String == "moving")
        events ~> .stayClosed(Self.stay)
        #expect(try await next("stay")["radius"] as? Double == 12)
        events ~> .tripClosed(Self.trip)
        #expect(try await next("trip")["distance"] as? Double == 12_345.6)
        motion ~> .stopped(since: Self.open.start, latitude: 48.2, longitude: 11.6)
        let stopped = try await next("motion")
        #expect(stopped["motion"] as? String == "stopped")
        #expect(stopped["since"] as? String == UTCCalendar.iso8601(Self.open.start))
        // The stay a gap dropped after the trip reached it: a `drop` event naming it.
        events ~> .stayDropped(Self.open)
        let dropped = try await next("drop")
        #expect(dropped["class"] as? String == "DROP")
        #expect(dropped["start"] as? String == UTCCalendar.iso8601(Self.open.start))
    }
}
