import Foundation
import LocationProviders
import LocationState
import LocationTestSupport
import Testing

/// gpsd killed and started again under a running GPSDProvider and LocationCoordinator.
@Suite(.timeLimit(.minutes(5)))
struct GPSDRestartTests {
    /// Kill/restart cycles to run: `LOCATIOND_GPSD_CYCLES` (default 2; the target is 20).
    static let cycles = ProcessInfo.processInfo.environment["LOCATIOND_GPSD_CYCLES"].flatMap(Int.init) ?? 2
    static let freshnessTimeout = Duration.seconds(2)

    @Test func theLocationGoesNilOnEachKillAndFixesResume() async throws {
        let track = TestTrack()
        let file = try track.write()
        let port = try GPSFake.freeLoopbackPort()
        let log = CapturedLog()
        let provider = GPSDProvider(
            host: "127.0.0.1", port: port, backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(400)),
            pollInterval: .milliseconds(100), logger: log.logger())
        let coordinator = LocationCoordinator(freshnessTimeout: Self.freshnessTimeout, logger: log.logger())
        let locations = Mailbox<Location?>()
        let observation = coordinator.deviceLocation.observe { locations.post($0.new) }
        defer { observation.cancel() }
        let task = Task { try await coordinator.run(provider) }
        defer { task.cancel() }

        var survived = 0
        for cycle in 1...Self.cycles {
            let gpsfake = try GPSFake(log: file, port: port)
            defer { gpsfake.stop() }
            let fix = try await gpsfake.explaining(log) {
                try await locations.next(within: .seconds(30), "a fix in cycle \(cycle)") { $0 != nil }
            }
            #expect(fix?.source == .gpsd)
            #expect(fix.map { track.contains(lat: $0.lat!, lon: $0.lon!) } == true)
            gpsfake.killGPSD()
            // The lost connection clears the location at once, the freshness timeout
            // at the latest; the wait allows a loaded machine ten seconds more.
            _ = try await locations.next(
                within: Self.freshnessTimeout + .seconds(10), "nil after the kill in cycle \(cycle)"
            ) { $0 == nil }
            #expect(!coordinator.status.value.isConnected)
            survived = cycle
        }
        #expect(survived == Self.cycles)
        print("gpsd kill/restart cycles survived with fixes resuming: \(survived)")
    }
}
