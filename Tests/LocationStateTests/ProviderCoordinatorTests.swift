import Foundation
import LocationTestSupport
import Testing

@testable import LocationProviders
@testable import LocationState
@testable import LocationStores

/// LocationCoordinator: provider events and the freshness timer into the two states.
@Suite(.timeLimit(.minutes(10)))
struct ProviderCoordinatorTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_000_000)
    static let fix = Location(time: t0, mode: .threeD, lat: 48.1, lon: 11.5, source: .gpsd)
    static let later = Location(time: t0.addingTimeInterval(1), mode: .threeD, lat: 48.2, lon: 11.5, source: .gpsd)

    /// A coordinator with recorders attached to both of its states.
    struct Harness {
        let coordinator: LocationCoordinator
        let locations = Recorder<Location?>()
        let statuses = Recorder<ProviderStatus>()

        init(timeout: Duration = .seconds(60), clock: any Clock<Duration> = ContinuousClock()) {
            coordinator = LocationCoordinator(
                freshnessTimeout: timeout, clock: clock, now: { ProviderCoordinatorTests.t0 })
            coordinator.deviceLocation.addListener(locations)
            coordinator.status.addListener(statuses)
        }

        var locationValues: [Location?] { locations.changes.map(\.new) }
        var statusValues: [ProviderStatus] { statuses.changes.map(\.new) }
    }

    @Test func fixesGoToTheStateAndNoFixClearsIt() async throws {
        let harness = Harness()
        harness.coordinator.receive(.connected)
        harness.coordinator.receive(.fix(Self.fix))
        harness.coordinator.receive(.fix(Self.later))
        harness.coordinator.receive(.noFix(nil))
        try await harness.locations.wait(forCount: 3)
        try await harness.statuses.wait(forCount: 4)
        #expect(harness.locationValues == [Self.fix, Self.later, nil])
        #expect(
            harness.statusValues == [
                .waitingForFix(.gpsd, lastFix: nil), .live(.gpsd, lastFix: Self.t0),
                .live(.gpsd, lastFix: Self.later.time!), .noFix(.gpsd, lastFix: Self.later.time!),
            ])
        // A repeated no-fix report changes nothing, and notifies nobody.
        harness.coordinator.receive(.noFix(nil))
        harness.coordinator.receive(.fix(Self.fix))
        try await harness.statuses.wait(forCount: 5)
        #expect(harness.statusValues.last == .live(.gpsd, lastFix: Self.t0))
        #expect(harness.statusValues.dropLast().last == .noFix(.gpsd, lastFix: Self.later.time!))
    }

    @Test func noFixForTheTimeoutClearsTheLocation() async throws {
        let clock = ManualClock()
        let harness = Harness(timeout: .seconds(5), clock: clock)
        harness.coordinator.receive(.fix(Self.fix))
        // The timer sleeps until the fix's deadline, and a moment before it the fix is current.
        try await clock.waitForSleeper(until: .seconds(5))
        clock.advance(by: .milliseconds(4_999))
        #expect(harness.coordinator.status.value == .live(.gpsd, lastFix: Self.t0))
        clock.advance(by: .milliseconds(1))
        try await harness.locations.wait(for: "the fix to go stale") { $0.count == 2 }
        #expect(harness.locationValues == [Self.fix, nil])
        #expect(harness.coordinator.status.value == .stale(.gpsd, lastFix: Self.t0))
        // A new fix makes it current again, with a new deadline.
        harness.coordinator.receive(.fix(Self.later))
        try await harness.locations.wait(forCount: 3)
        #expect(harness.coordinator.status.value == .live(.gpsd, lastFix: Self.later.time!))
        try await clock.waitForSleeper(until: .seconds(10))
    }

    @Test func aFixInTimeRestartsTheTimeout() async throws {
        let clock = ManualClock()
        let harness = Harness(timeout: .seconds(3), clock: clock)
        harness.coordinator.receive(.fix(Self.fix))
        try await clock.waitForSleeper(until: .seconds(3))
        clock.advance(by: .milliseconds(300))
        harness.coordinator.receive(.fix(Self.later))
        // The first deadline passes: the timer finds the deadline moved and sleeps on.
        clock.advance(by: .milliseconds(2_700))
        try await clock.waitForSleeper(until: .milliseconds(3_300))
        #expect(harness.coordinator.status.value == .live(.gpsd, lastFix: Self.later.time!))
        try await harness.locations.wait(forCount: 2)
        #expect(harness.locationValues == [Self.fix, Self.later])
        clock.advance(by: .milliseconds(300))
        try await harness.locations.wait(for: "the second fix to go stale") { $0.count == 3 }
        #expect(harness.locationValues == [Self.fix, Self.later, nil])
    }

    @Test func losingTheSourceClearsTheLocation() async throws {
        let harness = Harness()
        harness.coordinator.receive(.fix(Self.fix))
        harness.coordinator.receive(.disconnected(reason: "gpsd went away."))
        try await harness.locations.wait(forCount: 2)
        #expect(harness.locationValues == [Self.fix, nil])
        #expect(harness.coordinator.status.value == .lost(.gpsd, reason: "gpsd went away.", lastFix: Self.t0))
    }

    @Test func aRestoredFixShowsInTheStatusOnly() {
        let harness = Harness()
        var restored = Self.fix
        restored.source = .restored
        harness.coordinator.restore(restored)
        #expect(harness.coordinator.status.value == .restored(.gpsd, lastFix: Self.t0))
        #expect(harness.coordinator.deviceLocation.value == nil)
    }

    @Test func runFeedsTheStatesFromAProvider() async throws {
        let harness = Harness()
        let provider = SimulatedProvider(seed: 9, interval: .milliseconds(10))
        let task = Task { try await harness.coordinator.run(provider) }
        defer { task.cancel() }
        try await harness.locations.wait(forCount: 3)
        #expect(harness.locationValues.allSatisfy { $0?.source == .simulated })
        #expect(harness.coordinator.status.value.source == .simulated)
        #expect(harness.coordinator.status.value.isLive)
    }
}
