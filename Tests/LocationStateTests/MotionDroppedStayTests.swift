import Foundation
import LocationState
import LocationTestSupport
import LocationTimeline
import Testing

/// A stay that a gap drops after it was reported: withdrawn, so that no trip keeps a `to`
/// naming a stay that will never close; the stays themselves stay trackintel's.
@Suite(.timeLimit(.minutes(5)))
struct MotionDroppedStayTests {
    typealias T = MotionTrack

    /// A stay at the origin, a drive 1 km north, a stay there of 400 s, then no fix for
    /// `gap` seconds and a last fix farther on.
    static func arriveThenGap(_ gap: Double) -> [Location] {
        var fixes = MotionTrackerTests.still(0, 400)
        fixes += (1...50).map { T.fix(400 + Double($0), north: 20 * Double($0)) }
        fixes += MotionTrackerTests.still(460, 860, north: 1000)
        fixes.append(T.fix(860 + gap, north: 3000))
        return fixes
    }

    /// The trip closes into the stay it reached; a gap longer than the stay gap then drops
    /// that stay, and a DROP names it: its start is the trip's `to`, no STAY comes for it.
    @Test func gapWithdrawsTheStayATripReached() throws {
        var tracker = MotionTracker()
        let events = T.feed(&tracker, Self.arriveThenGap(901)) + tracker.finish()
        let trip = try #require(T.trips(events).first)
        // The stay began with the drive's fixes within the stay distance of its end.
        let arrival = try #require(trip.to)
        #expect(arrival > T.time(400) && arrival <= T.time(450))
        let dropped = events.compactMap { if case .stayDropped(let stay) = $0 { stay } else { nil } }
        #expect(dropped.map(\.start) == [arrival])
        #expect(dropped.first?.end == T.time(860) && dropped.first?.isOpen == false)
        #expect(!T.stays(events).contains { $0.start == arrival })
        // The first stay closed as before; the drop comes after the trip, before the motion turns unknown.
        #expect(T.stays(events).map(\.start) == [T.time(0)])
        #expect(T.kinds(events) == ["stopped", "moving", "stay", "trip", "stopped", "drop", "unknown"])
        #expect(tracker.openStay == nil)
    }

    /// At the stay gap itself nothing is dropped: the stay closes and the trip's `to` holds.
    @Test func noDropAtTheStayGap() {
        var tracker = MotionTracker()
        let events = T.feed(&tracker, Self.arriveThenGap(900)) + tracker.finish()
        #expect(!events.contains { if case .stayDropped = $0 { true } else { false } })
        #expect(T.stays(events).count == 2)
        #expect(T.trips(events).first?.to == T.stays(events).last?.start)
    }

    /// ``MotionTracker/expire(at:)`` drops the stay as the gap would, with the same DROP.
    @Test func expireWithdrawsTheStayToo() throws {
        var tracker = MotionTracker()
        _ = T.feed(&tracker, Array(Self.arriveThenGap(901).dropLast()))
        let open = try #require(tracker.openStay)
        #expect(tracker.expire(at: T.time(860 + 900)).isEmpty)
        let events = tracker.expire(at: T.time(860 + 901))
        try #require(events.count == 2, "\(events)")
        guard case .stayDropped(let stay) = events[0] else {
            Issue.record("not a drop: \(events[0])")
            return
        }
        #expect(stay.start == open.start && stay.end == T.time(860) && stay.fixes == open.fixes)
        #expect(events[1] == .motion(.unknown))
        #expect(tracker.motion == .unknown)
    }

    /// A stay that continued the last one (the same place, within the stay gap) and is then
    /// dropped leaves the last one closed as it was: no trip reached the continuation, and
    /// nothing is withdrawn.
    @Test func droppedContinuationClosesTheStayItContinued() {
        var tracker = MotionTracker()
        var fixes = MotionTrackerTests.still(0, 400)
        fixes += [T.fix(410, north: 150), T.fix(420, north: 150)]
        fixes += MotionTrackerTests.still(430, 800)
        fixes.append(T.fix(1800, north: 3000))
        let events = T.feed(&tracker, fixes) + tracker.finish()
        #expect(!events.contains { if case .stayDropped = $0 { true } else { false } })
        #expect(T.stays(events).map(\.start) == [T.time(0)])
        #expect(T.stays(events).first?.end == T.time(410))
        #expect(T.trips(events).isEmpty)
    }

    /// The DROP line: a STAY line's members under its own class, so that a reader of STAY
    /// lines never takes it for a stay.
    @Test func dropLine() {
        let stay = Stay(
            start: T.time(0), end: T.time(600), latitude: 47.37, longitude: 8.54, radius: 2.5, fixes: 61)
        #expect(
            TimelineEvent.stayDropped(stay).jsonString
                == #"{"class":"DROP","start":"2026-11-18T11:06:40.000Z","end":"2026-11-18T11:16:40.000Z","lat":47.3700000,"lon":8.5400000,"radius":2.5,"fixes":61}"#
        )
        #expect(stay.dropText.hasPrefix("2026-11-18T11:06:40.000Z DROP 47.370000 8.540000 until "))
    }
}
