import Foundation
import LocationState
import LocationTestSupport
import LocationTimeline
import Testing

/// Trips between stays, merged stays, and the input the tracker ignores.
@Suite(.timeLimit(.minutes(5)))
struct MotionTripTests {
    typealias T = MotionTrack

    /// A stay at the origin, a drive north at `speed` m/s with a fix a second, a stay at the end.
    static func drive(metres: Double, speed: Double, receiverSpeed: Bool) -> [Location] {
        var fixes = MotionTrackerTests.still(0, 400)
        let seconds = metres / speed
        var t = 401.0
        while t - 400 < seconds {
            fixes.append(T.fix(t, north: (t - 400) * speed, speed: receiverSpeed ? speed : nil))
            t += 1
        }
        fixes += MotionTrackerTests.still(t, t + 400, north: metres)
        fixes.append(T.fix(t + 410, north: metres + 600))
        return fixes
    }

    /// A trip runs from the end of one stay (the fix that left it) to the start of the
    /// next, its distance along its fixes over that time: the step into the fix that left
    /// the stay lies in the stay's time, so it is not counted, and the average speed is
    /// never above the maximum.
    @Test func tripBetweenTwoStays() throws {
        var tracker = MotionTracker()
        // 7 m a fix: no fix falls exactly at the stay distance from a candidate's first.
        let events = T.feed(&tracker, Self.drive(metres: 2000, speed: 7, receiverSpeed: true)) + tracker.finish()
        let stays = T.stays(events)
        try #require(stays.count == 2 && T.trips(events).count == 1, "\(events.map(\.jsonString))")
        let trip = try #require(T.trips(events).first)
        #expect(trip.start == stays[0].end)
        #expect(trip.end == stays[1].start)
        #expect(trip.from == stays[0].start && trip.to == stays[1].start)
        // From the trip's first fix to the next stay's first.
        let seconds = trip.end.timeIntervalSince(trip.start)
        #expect(abs(trip.distance - 7 * seconds) < 0.001)
        #expect(Double(trip.fixes) == seconds)
        #expect(abs(trip.maxSpeed - 7) < 1e-9)
        #expect(abs(trip.averageSpeed - 7) < 1e-9)
        // Stays, trip and motion come in time order; the last fix leaves the stay alone, with
        // no fix after it to confirm the departure: the motion stays `stopped`.
        #expect(T.kinds(events) == ["stopped", "moving", "stay", "trip", "stopped", "stay"])
    }

    /// Without the receiver's speed, the maximum is computed from consecutive fixes.
    @Test func maxSpeedComputedWithoutTheReceivers() throws {
        var tracker = MotionTracker()
        let events = T.feed(&tracker, Self.drive(metres: 2000, speed: 20, receiverSpeed: false))
        let trip = try #require(T.trips(events).first)
        #expect(abs(trip.maxSpeed - 20) < 0.01)
    }

    /// Parked for an hour with a receiver's jitter: one stay, no trip, no distance.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func parkedForAnHour(seed: UInt64) {
        var tracker = MotionTracker()
        var jitter = ReceiverJitter(seed: seed)
        var events: [TimelineEvent] = []
        for second in 0..<3600 {
            let offset = jitter.next()
            events += tracker.ingest(T.fix(Double(second), north: offset.north, east: offset.east))
        }
        #expect(T.trips(events).isEmpty)
        #expect(tracker.openTrip == nil)
        #expect(T.stays(events).isEmpty)
        #expect(tracker.openStay?.start == T.time(0))
        #expect(tracker.openStay?.fixes == 3600)
        #expect(T.motions(events) == ["stopped"])
    }

    /// A stay that starts within the stay gap of the last one's end, with its centroid within
    /// the stay distance of the last one's, continues it: one stay, no trip in between.
    @Test func staysAtOnePlaceMerge() throws {
        var tracker = MotionTracker()
        var fixes = MotionTrackerTests.still(0, 600)
        // A multipath excursion: 150 m away for 30 s, then back.
        fixes += [T.fix(610, north: 150), T.fix(620, north: 150), T.fix(630, north: 150)]
        fixes += MotionTrackerTests.still(640, 1200, north: 5)
        fixes += [T.fix(1210, north: 600)]
        let events = T.feed(&tracker, fixes) + tracker.finish()
        let stays = T.stays(events)
        #expect(stays.count == 1)
        #expect(T.trips(events).isEmpty)
        let stay = try #require(stays.first)
        #expect(stay.start == T.time(0) && stay.end == T.time(1210))
        #expect(stay.fixes == 61 + 57)
        // The excursion's second fix confirms it; the last fix alone does not.
        #expect(T.motions(events) == ["stopped", "moving", "stopped"])
    }

    /// Stays farther apart than the stay distance do not merge, however soon the second starts.
    @Test func staysAtTwoPlacesDoNotMerge() {
        var tracker = MotionTracker()
        var fixes = MotionTrackerTests.still(0, 600)
        fixes += MotionTrackerTests.still(610, 1200, north: 300)
        fixes += [T.fix(1210, north: 900)]
        let events = T.feed(&tracker, fixes) + tracker.finish()
        #expect(T.stays(events).map(\.start) == [T.time(0), T.time(610)], "\(events.map(\.jsonString))")
        // The trip's only fix is the next stay's first: no trip is reported.
        #expect(T.trips(events).isEmpty)
    }

    /// Times that repeat or go backwards, fixes without time or position: ignored and counted.
    @Test func badTimesAreIgnored() {
        var tracker = MotionTracker()
        var fixes = MotionTrackerTests.still(0, 400)
        fixes.insert(T.fix(190, north: 3000), at: 20)  // a repeated time, far away
        fixes.insert(T.fix(50, north: -3000), at: 30)  // backwards
        fixes.insert(Location(mode: .threeD, lat: 47, lon: 8, source: .replay), at: 5)  // no time
        fixes.insert(T.fix(105, mode: .noFix), at: 12)  // no position
        fixes.append(T.fix(410, north: 500))
        let events = T.feed(&tracker, fixes) + tracker.finish()
        #expect(T.stays(events).map(\.fixes) == [41])
        #expect(tracker.ignored.outOfOrder == 2)
        #expect(tracker.ignored.withoutTime == 1)
        #expect(tracker.ignored.withoutPosition == 1)
    }

    /// A 1000 km jump in one second is ignored and counted; the stay goes on.
    @Test func impossibleJumpIsIgnored() {
        var tracker = MotionTracker()
        var fixes = MotionTrackerTests.still(0, 400)
        fixes.insert(T.fix(201, north: 1_000_000), at: 21)
        fixes.append(T.fix(410, north: 500))
        let events = T.feed(&tracker, fixes) + tracker.finish()
        #expect(T.stays(events).map(\.fixes) == [41])
        #expect(tracker.ignored.jumps == 1)
        #expect(T.trips(events).isEmpty)
    }

    /// Three jumps in a row that agree with each other: the track really moved (a source
    /// switched). The three are used after all, as trackintel uses every fix: the first ends
    /// the stay, as a fix that far away ends trackintel's staypoint, and the stay after
    /// begins with it; the step across the jump is not travelled.
    @Test func agreeingJumpsAreUsedAfterAll() {
        var tracker = MotionTracker()
        var fixes = MotionTrackerTests.still(0, 400)
        fixes += (1...3).map { T.fix(400 + Double($0), north: 1_000_000) }
        fixes += MotionTrackerTests.still(410, 800, north: 1_000_000)
        let events = T.feed(&tracker, fixes) + tracker.finish()
        #expect(tracker.ignored.jumps == 0)
        #expect(T.stays(events).map(\.start) == [T.time(0)], "\(events.map(\.jsonString))")
        #expect(T.stays(events).first?.end == T.time(401))
        #expect(tracker.openStay?.start == T.time(401))
        #expect(T.trips(events).allSatisfy { $0.distance == 0 }, "\(events.map(\.jsonString))")
    }

    /// A parked receiver's outlier near enough to get through the jump filter (1.7 km after
    /// 20 s without a fix), then the fixes back where it was, each a jump from the outlier:
    /// the outlier ends the stay, as it ends trackintel's staypoint, and the stay after it
    /// continues it; the device never left. (Before, the fixes back were taken for a
    /// discontinuity, a gap, and the stay was cut in two.)
    @Test func fixesBackFromAnOutlierThatGotThroughContinueTheStay() {
        var tracker = MotionTracker()
        var fixes = MotionTrackerTests.still(0, 400)
        fixes.append(T.fix(420, north: 1_700))
        fixes += (1...3).map { T.fix(420 + Double($0), north: 2) }
        fixes += MotionTrackerTests.still(430, 1200)
        let events = T.feed(&tracker, fixes)
        #expect(tracker.ignored.jumps == 0)
        #expect(T.stays(events).isEmpty, "\(events.map(\.jsonString))")
        #expect(T.trips(events).isEmpty, "\(events.map(\.jsonString))")
        #expect(tracker.motion.stoppedSince == T.time(0))
    }

    /// Parked for 3 M fixes (more than a month at 1 Hz): the tracker's state does not grow
    /// with the stay: encoded, it has the same members after ten minutes and after all of
    /// them, only the numbers differ.
    @Test(.timeLimit(.minutes(5))) func stateIsConstantInTheLengthOfAStay() throws {
        var tracker = MotionTracker()
        var jitter = ReceiverJitter(seed: 7, outliers: false)
        var shapeAfterTenMinutes = ""
        for second in 0..<3_000_000 {
            let offset = jitter.next()
            _ = tracker.ingest(T.fix(Double(second), north: offset.north, east: offset.east))
            if second == 600 { shapeAfterTenMinutes = try Self.shape(of: tracker) }
        }
        #expect(tracker.openStay?.fixes == 3_000_000 - tracker.ignored.total)
        let shapeAtTheEnd = try Self.shape(of: tracker)
        #expect(shapeAtTheEnd == shapeAfterTenMinutes)
    }

    /// The tracker as JSON with every number replaced by 0.
    static func shape(of tracker: MotionTracker) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let json = String(decoding: try encoder.encode(tracker), as: UTF8.self)
        return json.replacing(/-?[0-9][0-9.eE+-]*/, with: "0")
    }
}
