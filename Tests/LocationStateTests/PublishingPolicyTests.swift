import Foundation
import LocationTestSupport
import Testing

@testable import LocationMQTT
@testable import LocationState
@testable import LocationTimeline

@Suite(.timeLimit(.minutes(10))) struct PublishingPolicyTests {
    private static let start = Date(timeIntervalSince1970: 1_000_000)

    private static func fix(_ seconds: Double, north metres: Double = 0, speed: Double? = nil) -> Location {
        // One degree of latitude is about 111.2 km.
        Location(
            time: start.addingTimeInterval(seconds), mode: .twoD, lat: 50 + metres / 111_200, lon: 8, speed: speed,
            source: .gpsd)
    }

    @Test func everyFixWithoutAnInterval() {
        let policy = PublishingPolicy()
        #expect(policy.shouldPublish(Self.fix(0.1), at: Self.start, last: (Self.fix(0), Self.start)))
    }

    @Test(arguments: [
        // seconds after the last published, metres moved, published?
        (0.0, 0.0, false), (29.9, 0.0, false), (30.0, 0.0, true), (10.0, 99.0, false), (10.0, 101.0, true),
        (-5.0, 0.0, true),
    ])
    func atMostOnePerIntervalUnlessMoved(seconds: Double, metres: Double, published: Bool) {
        let policy = PublishingPolicy(minimumInterval: 30, minimumDistance: 100)
        let last = (Self.fix(0), Self.start)
        #expect(policy.shouldPublish(Self.fix(seconds, north: metres), at: Self.start, last: last) == published)
    }

    @Test func noDistanceRuleWhenZero() {
        let policy = PublishingPolicy(minimumInterval: 30, minimumDistance: 0)
        #expect(!policy.shouldPublish(Self.fix(1, north: 10_000), at: Self.start, last: (Self.fix(0), Self.start)))
    }

    @Test func arrivalTimesWhenAFixHasNoTime() {
        let policy = PublishingPolicy(minimumInterval: 30)
        let untimed = Location(mode: .twoD, lat: 50, lon: 8, source: .gpsd)
        #expect(!policy.shouldPublish(untimed, at: Self.start.addingTimeInterval(29), last: (untimed, Self.start)))
        #expect(policy.shouldPublish(untimed, at: Self.start.addingTimeInterval(31), last: (untimed, Self.start)))
    }

    @Test func theFirstFixAlwaysGoesOut() {
        #expect(PublishingPolicy(minimumInterval: 3600).shouldPublish(Self.fix(0), at: Self.start, last: nil))
    }

    @Test(arguments: [
        // seconds after the last published, metres moved, published while stopped?
        (1.0, 0.0, false), (899.0, 30.0, false), (900.0, 0.0, true), (10.0, 150.0, false), (-5.0, 0.0, true),
    ])
    func aHeartbeatWhileStopped(seconds: Double, metres: Double, stopped: Bool) {
        let policy = PublishingPolicy()
        let last = (Self.fix(0), Self.start)
        let fix = Self.fix(seconds, north: metres)
        let since = Self.start.addingTimeInterval(-600)
        #expect(
            policy.shouldPublish(
                fix, at: Self.start, last: last, motion: .stopped(since: since, latitude: 50, longitude: 8))
                == stopped)
        #expect(policy.shouldPublish(fix, at: Self.start, last: last, motion: .unknown))
        #expect(policy.shouldPublish(fix, at: Self.start, last: last, motion: .moving))
    }

    @Test func noHeartbeatRuleWhenTheStoppedIntervalIsZero() {
        let policy = PublishingPolicy(stoppedInterval: 0)
        let since = Self.start.addingTimeInterval(-600)
        #expect(
            policy.shouldPublish(
                Self.fix(1), at: Self.start, last: (Self.fix(0), Self.start),
                motion: .stopped(since: since, latitude: 50, longitude: 8)))
    }

    /// Before a stop is recognised: a fix the receiver says is still (below 0.7 m/s) and
    /// within 50 m of the last one published waits for the heartbeat; one that moves,
    /// faster or farther, or has no speed, goes out at once.
    @Test(arguments: [
        // seconds after the last published, metres from it, receiver speed, published?
        (1.0, 3.0, 0.2 as Double?, false), (299.0, 25.0, 0.4, false), (899.0, 49.0, 0.69, false),
        (900.0, 0.0, 0.1, true), (1.0, 1.5, 1.4, true), (1.0, 1.0, 0.7, true), (20.0, 51.0, 0.3, true),
        (1.0, 3.0, nil, true), (-5.0, 0.0, 0.0, true),
    ])
    func aStillFixWaitsForTheHeartbeat(seconds: Double, metres: Double, speed: Double?, published: Bool) {
        let last = (Self.fix(0), Self.start)
        let fix = Self.fix(seconds, north: metres, speed: speed)
        for motion in [nil, Motion.unknown, .moving] {
            #expect(PublishingPolicy().shouldPublish(fix, at: Self.start, last: last, motion: motion) == published)
        }
        // Without the heartbeat (stopped interval 0) every fix goes out, still or not.
        #expect(
            PublishingPolicy(stoppedInterval: 0).shouldPublish(fix, at: Self.start, last: last, motion: .unknown))
    }
}
