import Foundation
import LocationState
import LocationTestSupport
import LocationTimeline
import Testing

/// The stay rule of trackintel's sliding method, rule by rule, and what the tracker adds to it.
@Suite(.timeLimit(.minutes(10)))
struct MotionTrackerTests {
    typealias T = MotionTrack

    /// Fixes every `step` seconds from `from` to `to` (inclusive) at one place.
    static func still(_ from: Double, _ to: Double, step: Double = 10, north: Double = 0, east: Double = 0)
        -> [Location]
    {
        stride(from: from, through: to, by: step).map { T.fix($0, north: north, east: east) }
    }

    /// A stay is the fixes from its first to the last before the fix that leaves it:
    /// `start` is the first's time, `end` the leaving fix's (trackintel's `finished_at`).
    @Test func stayEndsAtTheFixThatLeavesIt() {
        var tracker = MotionTracker()
        var fixes = Self.still(0, 400)
        fixes.append(T.fix(410, north: 500))
        fixes.append(T.fix(420, north: 1000))
        let stays = T.stays(T.feed(&tracker, fixes) + tracker.finish())
        #expect(stays.count == 1)
        #expect(stays.first?.start == T.time(0))
        #expect(stays.first?.end == T.time(410))
        #expect(stays.first?.fixes == 41)
    }

    /// Distances are measured from the candidate's first fix, not from the last one
    /// nor from the centroid: a creep of 60 m a step leaves at the second step.
    @Test func distanceIsMeasuredFromTheFirstFix() {
        var tracker = MotionTracker()
        // 0, 60, 120 m: the third is 120 m from the first, 60 m from the second.
        let fixes = [T.fix(0), T.fix(200, north: 60), T.fix(400, north: 120), T.fix(410, north: 600)]
        let stays = T.stays(T.feed(&tracker, fixes) + tracker.finish())
        // The candidate {0, 60} lasted until the fix at 400 s: a stay of two fixes.
        #expect(stays.map(\.fixes) == [2])
        #expect(stays.first?.end == T.time(400))
    }

    /// The stay distance is inclusive: a fix at it or beyond leaves, one just inside stays.
    @Test(arguments: [(99.9, false), (100.1, true)])
    func stayDistanceBoundary(metres: Double, leaves: Bool) {
        var tracker = MotionTracker()
        let fixes = [T.fix(0), T.fix(310, north: metres), T.fix(320, north: 600)]
        let stays = T.stays(T.feed(&tracker, fixes) + tracker.finish())
        // Leaving at 310 s makes a stay of one fix; staying makes one of two, left at 320 s.
        #expect(stays.map(\.fixes) == (leaves ? [1] : [2]))
    }

    /// The stay duration is inclusive and measured to the fix that leaves: the last fix
    /// inside may be well before it.
    @Test(arguments: [(300.0, true), (299.999, false)])
    func stayDurationBoundary(leavingAt seconds: Double, isStay: Bool) {
        var tracker = MotionTracker()
        let fixes = [T.fix(0), T.fix(100, north: 5), T.fix(seconds, north: 500)]
        let stays = T.stays(T.feed(&tracker, fixes) + tracker.finish())
        #expect(stays.count == (isStay ? 1 : 0))
        if isStay { #expect(stays.first?.end == T.time(300)) }
    }

    /// A candidate left too early ends there, and the fix that left it starts the next
    /// candidate (not the fix after the first one).
    @Test func nextCandidateStartsAtTheLeavingFix() {
        var tracker = MotionTracker()
        var fixes = [T.fix(0), T.fix(10, north: 150)]
        fixes += Self.still(20, 400, north: 160)
        fixes.append(T.fix(410, north: 600))
        let stays = T.stays(T.feed(&tracker, fixes) + tracker.finish())
        #expect(stays.map(\.start) == [T.time(10)])
        #expect(stays.first?.fixes == 40)
    }

    /// A time between fixes longer than the stay gap drops the candidate even when it
    /// had lasted long enough; the stay gap itself is not a gap.
    @Test(arguments: [(900.0, 1), (900.001, 0)])
    func gapDropsTheCandidate(gap: Double, stays expected: Int) {
        var tracker = MotionTracker()
        var fixes = Self.still(0, 600)
        fixes.append(T.fix(600 + gap))
        fixes.append(T.fix(610 + gap, north: 600))
        let stays = T.stays(T.feed(&tracker, fixes) + tracker.finish())
        #expect(stays.count == expected)
        if expected == 1 { #expect(stays.first?.fixes == 62) }
    }

    /// The last candidate is not a stay at the end of the data (trackintel's default,
    /// `include_last=False`), however long it lasted; the tracker shows it open.
    @Test func lastCandidateStaysOpen() {
        var tracker = MotionTracker()
        let events = T.feed(&tracker, Self.still(0, 3600)) + tracker.finish()
        #expect(T.stays(events).isEmpty)
        #expect(tracker.openStay?.isOpen == true)
        #expect(tracker.openStay?.start == T.time(0))
        #expect(tracker.openStay?.end == T.time(3600))
    }

    /// The centroid is the mean of the fixes' coordinates; the radius their RMS distance from it.
    @Test func centroidIsTheMean() throws {
        var tracker = MotionTracker()
        let fixes = [
            T.fix(0, north: 10), T.fix(100, north: -10), T.fix(200, east: 20), T.fix(300, east: -20),
            T.fix(310, north: 900),
        ]
        let stay = try #require(T.stays(T.feed(&tracker, fixes) + tracker.finish()).first)
        let latitudes = fixes.prefix(4).compactMap(\.lat)
        let longitudes = fixes.prefix(4).compactMap(\.lon)
        #expect(abs(stay.latitude - latitudes.reduce(0, +) / 4) < 1e-9)
        #expect(abs(stay.longitude - longitudes.reduce(0, +) / 4) < 1e-9)
        // Distances 10, 10, 20, 20 m from the centroid: RMS √250.
        #expect(abs(stay.radius - 250.0.squareRoot()) < 0.01)
    }

    /// The motion: unknown at first, stopped once a stay has lasted the duration (since its
    /// start), moving when it is left (and the fix after confirms it), unknown after a gap
    /// (once the two fixes after the gap's show that the time moved on).
    @Test func motionFollowsTheStays() {
        var tracker = MotionTracker()
        #expect(tracker.motion == .unknown)
        var events = T.feed(&tracker, Self.still(0, 290))
        #expect(tracker.motion == .unknown)
        events += T.feed(&tracker, Self.still(300, 400))
        guard case .stopped(let since, _, _, _) = tracker.motion else {
            Issue.record("not stopped: \(tracker.motion)")
            return
        }
        #expect(since == T.time(0))
        events += T.feed(&tracker, [T.fix(410, north: 500), T.fix(420, north: 1000)])
        #expect(tracker.motion == .moving)
        events += T.feed(&tracker, [T.fix(2000, north: 1000), T.fix(2010, north: 1000), T.fix(2020, north: 1000)])
        #expect(tracker.motion == .unknown)
        #expect(T.motions(events) == ["stopped", "moving", "unknown"])
    }

    /// No fix for longer than the stay gap: ``MotionTracker/expire(at:)`` ends what the next fix would.
    @Test func expireEndsWhatAGapWould() {
        var tracker = MotionTracker()
        _ = T.feed(&tracker, Self.still(0, 400) + [T.fix(410, north: 500), T.fix(420, north: 1000)])
        #expect(tracker.expire(at: T.time(1320)).isEmpty)
        let events = tracker.expire(at: T.time(1321))
        #expect(T.stays(events).map(\.start) == [T.time(0)])
        #expect(T.trips(events).count == 1)
        #expect(tracker.motion == .unknown)
        #expect(tracker.expire(at: T.time(5000)).isEmpty)
    }
}
