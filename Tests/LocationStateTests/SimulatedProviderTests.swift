import Foundation
import LocationTestSupport
import Testing

@testable import LocationProviders
@testable import LocationState

@Suite(.timeLimit(.minutes(10)))
struct SimulatedProviderTests {
    static let start = Date(timeIntervalSince1970: 1_795_000_000)

    static func route(seed: UInt64, count: Int, speed: Double = 13.9) -> [Location] {
        var route = SimulatedRoute(seed: seed, speed: speed, start: start)
        return (0..<count).map { _ in route.next() }
    }

    /// Great-circle distance, metres.
    static func distance(_ a: Location, _ b: Location) -> Double {
        Geodesy.greatCircleDistance(a.lat!, a.lon!, b.lat!, b.lon!)
    }

    @Test func sameSeedSameRoute() {
        #expect(Self.route(seed: 42, count: 500) == Self.route(seed: 42, count: 500))
        #expect(Self.route(seed: 42, count: 50) != Self.route(seed: 43, count: 50))
    }

    @Test(arguments: [UInt64(1), 2, 3, 99])
    func plausibleDrive(seed: UInt64) throws {
        let fixes = Self.route(seed: seed, count: 600)
        for (previous, fix) in zip(fixes, fixes.dropFirst()) {
            #expect(fix.source == .simulated && fix.status == 8 && fix.mode == .threeD)
            #expect(fix.time == previous.time?.addingTimeInterval(1))
            let speed = try #require(previous.speed)
            // The distance covered in one second is the speed held over it.
            #expect(
                abs(Self.distance(previous, fix) - speed) < 0.05,
                "jump of \(Self.distance(previous, fix)) m at \(speed) m/s")
            #expect(speed >= 13.9 * 0.85 && speed <= 13.9 * 1.15)
            var turn = abs(fix.track! - previous.track!)
            turn = min(turn, 360 - turn)
            #expect(turn <= 30, "a turn of \(turn)° in one second")
            #expect(abs(fix.climb!) <= 1.5)
            #expect(abs(fix.altHAE! - previous.altHAE! - fix.climb!) < 1e-9)
            #expect((2.5...15).contains(fix.eph!) && fix.epv! > fix.eph!)
            #expect((6...15).contains(fix.satellitesUsed!))
        }
        // It does turn: the course covers more than a quarter of the compass over ten minutes.
        let courses = fixes.compactMap(\.track)
        #expect(courses.max()! - courses.min()! > 90)
        // And it goes somewhere: ten minutes at 50 km/h (8 km driven) end more than 500 m from the start.
        #expect(Self.distance(fixes[0], fixes.last!) > 500)
    }

    @Test func crossesTheAntimeridianCleanly() {
        var route = SimulatedRoute(seed: 7, lat: 0, lon: 179.999, speed: 30, start: Self.start)
        for _ in 0..<300 {
            let fix = route.next()
            #expect((-180..<180).contains(fix.lon!))
            #expect((-90...90).contains(fix.lat!))
        }
    }

    @Test func providerIsPacedByItsClock() async throws {
        let clock = ImmediateClock(sleepsBeforeWaiting: 50)
        let recorder = EventRecorder()
        let provider = SimulatedProvider(seed: 5, interval: .milliseconds(200), clock: clock, now: { Self.start })
        let task = Task { try await provider.run(recorder.record) }
        try await withTimeLimit("50 fixes") { await recorder.waitForFixes(50) }
        task.cancel()
        try await withTimeLimit("the provider's return") { try await task.value }
        #expect(recorder.events.first == .connected)
        let fixes = recorder.fixes
        #expect(
            fixes.prefix(50).map { $0 }
                == {
                    var route = SimulatedRoute(seed: 5, interval: .milliseconds(200), start: Self.start)
                    return (0..<50).map { _ in route.next() }
                }())
        #expect(clock.slept.prefix(49).allSatisfy { $0 == .milliseconds(200) })
    }

    @Test func cancelledProviderReturns() async throws {
        let task = Task { try await SimulatedProvider(interval: .seconds(3600)).run { _ in } }
        task.cancel()
        try await withTimeLimit("the provider's return") { try await task.value }
    }
}
