import Foundation
import LocationProviders
import LocationState
import LocationTestSupport
import Testing

/// GPSDProvider against a real gpsd started by gpsfake.
@Suite(.timeLimit(.minutes(5)))
struct GPSDProviderTests {
    /// Runs `provider` in a task that posts its events into a mailbox.
    static func start(_ provider: GPSDProvider) -> (events: Mailbox<ProviderEvent>, task: Task<Void, Error>) {
        let events = Mailbox<ProviderEvent>()
        let task = Task { try await provider.run { events.post($0) } }
        return (events, task)
    }

    @Test func fixesMatchTheTrack() async throws {
        let track = TestTrack(epochs: 60)
        let gpsfake = try GPSFake(log: try track.write(), once: true)
        defer { gpsfake.stop() }
        let log = CapturedLog()
        let (events, task) = Self.start(
            GPSDProvider(
                host: "127.0.0.1", port: gpsfake.port,
                backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)), logger: log.logger()))
        defer { task.cancel() }

        var fixes: [Location] = []
        try await gpsfake.explaining(log) {
            _ = try await events.next(within: .seconds(30), "connected") { $0 == .connected }
            try await gpsfake.startFeeding()
            while fixes.count < 10 {
                let event = try await events.next(within: .seconds(30), "a fix") {
                    if case .fix = $0 { return true } else { return false }
                }
                if case .fix(let location) = event { fixes.append(location) }
            }
        }
        for fix in fixes {
            #expect(fix.source == .gpsd)
            #expect(track.contains(lat: fix.lat!, lon: fix.lon!), "\(fix.lat!), \(fix.lon!) is not on the track")
            #expect(fix.device?.hasPrefix("/dev/") == true)
        }
        let timed = fixes.compactMap(\.time)
        #expect(timed.count >= 8)
        #expect(timed == timed.sorted())
        // gpsd needs an epoch or two to learn the receiver; from then on every field is there.
        let settled = try #require(fixes.last)
        #expect(settled.mode == .threeD)
        #expect(settled.status == 1)
        #expect(settled.altMSL == 545.4)
        #expect(settled.altHAE.map { abs($0 - 592.3) < 1e-9 } == true)
        #expect(settled.geoidSep == 46.9)
        #expect(settled.satellitesUsed == 8)
        #expect(settled.hdop == 0.9)
        #expect(settled.speed.map { abs($0 - 12.0 * 1852 / 3600) < 0.01 } == true)
        #expect(settled.track == 45)
        #expect(settled.climb == 0)
        #expect(settled.eph != nil && settled.epv != nil && settled.epx != nil && settled.epy != nil)
    }
}
