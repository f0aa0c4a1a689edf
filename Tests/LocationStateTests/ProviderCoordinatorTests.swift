import Foundation
import Synchronization
import Testing

@testable import LocationState

/// LocationCoordinator: provider events and the freshness timer into the two states.
@Suite(.timeLimit(.minutes(1)))
struct ProviderCoordinatorTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_000_000)
    static let fix = Location(time: t0, mode: .threeD, lat: 48.1, lon: 11.5, source: .gpsd)
    static let later = Location(time: t0.addingTimeInterval(1), mode: .threeD, lat: 48.2, lon: 11.5, source: .gpsd)

    /// A coordinator with recorders attached to both of its states.
    struct Harness {
        let coordinator: LocationCoordinator
        let locations = Recorder<Location?>()
        let statuses = Recorder<ProviderStatus>()

        init(timeout: Duration = .seconds(60)) {
            coordinator = LocationCoordinator(freshnessTimeout: timeout, now: { ProviderCoordinatorTests.t0 })
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
        let harness = Harness(timeout: .milliseconds(100))
        let started = ContinuousClock.now
        harness.coordinator.receive(.fix(Self.fix))
        try await harness.locations.wait(for: "the fix to go stale") { $0.count == 2 }
        #expect(ContinuousClock.now - started >= .milliseconds(100))
        #expect(harness.locationValues == [Self.fix, nil])
        #expect(harness.coordinator.status.value == .stale(.gpsd, lastFix: Self.t0))
        // A new fix makes it current again (for the next 100 ms: under load it may be
        // stale again by the time this test looks, so the history is what is checked).
        harness.coordinator.receive(.fix(Self.later))
        try await harness.locations.wait(forCount: 3)
        try await harness.statuses.wait(for: "live again") {
            $0.contains { $0.new == .live(.gpsd, lastFix: Self.later.time!) }
        }
    }

    @Test func aFixInTimeRestartsTheTimeout() async throws {
        // A timeout ten times the gap between the fixes, so that a loaded machine that
        // fires the 300 ms timer late still delivers the second fix in time.
        let harness = Harness(timeout: .seconds(3))
        let coordinator = harness.coordinator
        let second = Mutex<ContinuousClock.Instant?>(nil)
        // The second fix comes from a Dispatch thread 300 ms after the first, not from
        // this task: in a loaded parallel test run, the cooperative pool may resume the
        // test long after the first fix went stale, and the deadline counts from the fix.
        coordinator.receive(.fix(Self.fix))
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(300)) {
            second.withLock { $0 = ContinuousClock.now }
            coordinator.receive(.fix(Self.later))
        }
        try await harness.locations.wait(for: "the second fix to go stale") { $0.count == 3 }
        let sent = try #require(second.withLock { $0 })
        #expect(ContinuousClock.now - sent >= .seconds(3))
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
