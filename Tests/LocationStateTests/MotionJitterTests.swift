import Foundation
import LocationProviders
import LocationState
import LocationTestSupport
import LocationTimeline
import Testing

/// A parked receiver's noise neither adds to a trip nor moves a parked device.
@Suite(.timeLimit(.minutes(5)))
struct MotionJitterTests {
    typealias T = MotionTrack

    /// At 10 Hz: parked 400 s, a 900 m drive at 15 m/s (the receiver says so), parked 400 s
    /// with white noise of `noise` metres and a receiver speed near 0, leaving.
    static func drive(seed: UInt64, noise: Double) -> [Location] {
        var random = SplitMix64(seed: seed)
        var fixes: [Location] = []
        func parked(_ from: Double, _ to: Double, north: Double) {
            var t = from
            while t < to {
                fixes.append(
                    T.fix(
                        t, north: north + noise * random.normal(), east: noise * random.normal(),
                        speed: 0.1 * abs(random.normal())))
                t = ((t + 0.1) * 10).rounded() / 10
            }
        }
        parked(0, 400, north: 0)
        for step in 1...600 {
            let t = 400 + Double(step) / 10
            fixes.append(T.fix(t, north: Double(step) * 1.5 + random.normal(), speed: 15))
        }
        parked(460.1, 860, north: 900)
        fixes.append(T.fix(870, north: 1800))
        return fixes
    }

    /// The jitter after arriving is no trip distance, and the average speed is never above
    /// the maximum.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5, 6, 7, 8])
    func parkedJitterAt10HzIsNoTripDistance(seed: UInt64) throws {
        var tracker = MotionTracker()
        let events = T.feed(&tracker, Self.drive(seed: seed, noise: 2)) + tracker.finish()
        let trip = try #require(T.trips(events).first, "\(events.map(\.jsonString))")
        #expect(T.trips(events).count == 1 && T.stays(events).count == 2)
        // The trip is the drive between the stays (they take the first and last hundred
        // metres or so): at most the 900 m, whatever the jitter.
        #expect(trip.distance > 600 && trip.distance < 915, "\(trip)")
        #expect(trip.averageSpeed <= trip.maxSpeed, "\(trip)")
        #expect(trip.maxSpeed < 15.5, "\(trip)")
    }

    /// Without the receiver's speed the distance is measured along the fixes, and the
    /// average is still never above the maximum: the maximum takes every counted step's speed.
    @Test(arguments: [UInt64(1), 2, 3])
    func averageNeverAboveMaximumWithoutReceiverSpeeds(seed: UInt64) throws {
        var tracker = MotionTracker()
        let fixes = Self.drive(seed: seed, noise: 2).map { fix in
            var fix = fix
            fix.speed = nil
            return fix
        }
        let events = T.feed(&tracker, fixes) + tracker.finish()
        for trip in T.trips(events) { #expect(trip.averageSpeed <= trip.maxSpeed, "\(trip)") }
    }

    /// Parked at 1 Hz, one multipath fix 110 m away (under the jump filter's 130 m), then
    /// back: the motion stays `stopped` throughout, and no trip is stored.
    @Test(arguments: [UInt64(1), 2, 3])
    func oneMultipathFixDoesNotMoveAParkedDevice(seed: UInt64) {
        var tracker = MotionTracker()
        var jitter = ReceiverJitter(seed: seed, outliers: false)
        var events: [TimelineEvent] = []
        var motions: Set<String> = []
        for second in 0..<1200 {
            let offset = jitter.next()
            let north = second == 600 ? 110 : offset.north
            events += tracker.ingest(T.fix(Double(second), north: north, east: offset.east))
            if second >= 300 { motions.insert(tracker.motion.name) }
        }
        // One stay from the first fix: the stay after the outlier continues the one before.
        #expect(tracker.openStay?.start == T.time(0))
        events += tracker.finish()
        #expect(motions == ["stopped"], "\(events.map(\.jsonString))")
        #expect(T.motions(events) == ["stopped"])
        #expect(T.trips(events).isEmpty)
    }

    /// A real departure: `moving` at the second fix away from the stay, and the trip starts
    /// at the first (the stay ends there, as trackintel's does).
    @Test func departureIsConfirmedByTheNextFix() throws {
        var tracker = MotionTracker()
        _ = T.feed(&tracker, MotionTrackerTests.still(0, 400))
        #expect(tracker.motion.name == "stopped")
        _ = tracker.ingest(T.fix(401, north: 120, speed: 12))
        #expect(tracker.motion.name == "stopped")
        let events = tracker.ingest(T.fix(402, north: 132, speed: 12))
        #expect(T.motions(events) == ["moving"])
        #expect(tracker.closingStay?.end == T.time(401))
        #expect(tracker.openTrip?.start == T.time(401))
    }
}
