import Foundation
import LocationState
import LocationTestSupport
import LocationTimeline
import Testing

/// Fixes whose time is far from their neighbours': one misdated fix costs one fix, and a
/// receiver whose date jumps back and stays there does not stop the timeline.
@Suite(.timeLimit(.minutes(5)))
struct MotionTimeTests {
    typealias T = MotionTrack

    /// 1,200 fixes a second: parked 400 s, a 400 s drive at 5 m/s, parked 400 s, leaving.
    static func day() -> [Location] {
        var fixes = MotionTrackerTests.still(0, 399, step: 1)
        fixes += (400..<800).map { T.fix(Double($0), north: Double($0 - 399) * 5, speed: 5) }
        fixes += MotionTrackerTests.still(800, 1199, step: 1, north: 2005)
        fixes.append(T.fix(1200, north: 2125))
        return fixes
    }

    /// 2099-01-01T00:00:00Z.
    static let future = Date(timeIntervalSince1970: 4_070_908_800)

    /// What the tracker makes of `fixes`, to the end of the data.
    static func timeline(_ fixes: [Location]) -> (events: [TimelineEvent], tracker: MotionTracker) {
        var tracker = MotionTracker()
        let events = T.feed(&tracker, fixes) + tracker.finish()
        return (events, tracker)
    }

    /// One fix dated 2099 among good ones (after the first, before the last): the stays and
    /// trips are those of the good fixes alone, and the fix is counted as misdated.
    @Test(arguments: [1, 600, 1200])
    func oneFutureFixCostsOneFix(at index: Int) throws {
        let good = Self.timeline(Self.day())
        try #require(T.stays(good.events).count == 2 && T.trips(good.events).count == 1)
        var fixes = Self.day()
        var misdated = fixes[index]
        misdated.time = Self.future
        fixes.insert(misdated, at: index)
        let bad = Self.timeline(fixes)
        #expect(T.stays(bad.events) == T.stays(good.events), "\(bad.events.map(\.jsonString))")
        #expect(T.trips(bad.events) == T.trips(good.events))
        #expect(bad.tracker.ignored.misdated == 1)
        #expect(bad.tracker.lastFixTime == T.time(1200))
    }

    /// Two fixes dated 2099 in a row, each after the one before: they cost themselves, the
    /// stay under way goes on.
    @Test func twoFutureFixesInARowCostTwo() throws {
        let good = Self.timeline(Self.day())
        var fixes = Self.day()
        for offset in [1.0, 0.0] {
            var misdated = fixes[600]
            misdated.time = Self.future.addingTimeInterval(offset)
            fixes.insert(misdated, at: 600)
        }
        let bad = Self.timeline(fixes)
        #expect(T.stays(bad.events) == T.stays(good.events), "\(bad.events.map(\.jsonString))")
        #expect(T.trips(bad.events) == T.trips(good.events))
        #expect(bad.tracker.ignored.misdated == 2)
    }

    /// A first fix dated 2099: nothing before it says it is wrong, so the good fixes after it
    /// are taken as a clock that went back; three that agree start the tracker over.
    @Test func futureFirstFixCostsThree() {
        var fixes = Self.day()
        var misdated = fixes[0]
        misdated.time = Self.future
        fixes.insert(misdated, at: 0)
        let (events, tracker) = Self.timeline(fixes)
        #expect(tracker.ignored.misdated == 2 && tracker.ignored.timeResets == 1)
        #expect(T.stays(events).first?.start == T.time(2), "\(events.map(\.jsonString))")
        #expect(T.stays(events).count == 2 && T.trips(events).count == 1)
    }

    /// A receiver whose date jumps back 1024 weeks (a GPS week rollover) and stays there: the
    /// tracker starts over on the new dates after three fixes that agree, and records stays.
    @Test func weekRolloverStartsOver() {
        let rollover = 1024 * 7 * 86_400.0
        let shifted = Self.day().map { fix in
            var fix = fix
            fix.time = fix.time?.addingTimeInterval(400 - rollover)
            return fix
        }
        let reference = Self.timeline(shifted).events
        let (events, tracker) = Self.timeline(MotionTrackerTests.still(0, 399, step: 1) + shifted)
        #expect(tracker.ignored.timeResets == 1)
        #expect(tracker.ignored.misdated == 2)
        // The first two fixes after the jump are the ones it costs: the stay starts at the third.
        let stays = T.stays(events)
        #expect(stays.count == 2, "\(events.map(\.jsonString))")
        #expect(stays.first?.start == T.time(402 - rollover))
        #expect(stays.last == T.stays(reference).last)
        // The same trip, from the stay that starts two fixes later.
        #expect(T.trips(events).map(\.start) == T.trips(reference).map(\.start))
        #expect(T.trips(events).map(\.distance) == T.trips(reference).map(\.distance))
    }

    /// A fix that goes back a little (a repeated or late epoch) is ignored, however many.
    @Test func smallStepsBackAreIgnored() {
        var fixes = MotionTrackerTests.still(0, 399, step: 1)
        fixes += (0..<5).map { T.fix(300 + Double($0)) }
        fixes += MotionTrackerTests.still(400, 500, step: 1)
        var tracker = MotionTracker()
        _ = T.feed(&tracker, fixes)
        #expect(tracker.ignored.outOfOrder == 5)
        #expect(tracker.ignored.timeResets == 0)
        #expect(tracker.openStay?.start == T.time(0))
    }

    /// A real gap: the fix after it goes on from it, so the gap ends the stay as before.
    @Test func realGapStillEndsTheStay() {
        var fixes = MotionTrackerTests.still(0, 399, step: 1)
        fixes += MotionTrackerTests.still(2000, 2400, step: 1, north: 3000)
        let (events, tracker) = Self.timeline(fixes)
        #expect(T.kinds(events) == ["stopped", "drop", "unknown", "stopped"], "\(events.map(\.jsonString))")
        #expect(tracker.openStay?.start == T.time(2000))
        #expect(tracker.ignored.total == 0)
    }

    /// A state saved after a fix dated 2099 (as an older locationd stored it) takes good
    /// fixes again after three of them.
    @Test func savedFutureStateRecovers() throws {
        var saved = MotionTracker()
        let seconds = Self.future.timeIntervalSince(T.t0)
        _ = T.feed(&saved, [T.fix(seconds), T.fix(seconds + 1), T.fix(seconds + 2)])
        var tracker = try JSONDecoder().decode(MotionTracker.self, from: JSONEncoder().encode(saved))
        #expect(tracker.lastFixTime! > Self.future)
        let events = T.feed(&tracker, Self.day()) + tracker.finish()
        #expect(T.stays(events).count == 2, "\(events.map(\.jsonString))")
        #expect(tracker.ignored.timeResets == 1)
    }
}
