import Foundation
import LocationState
import Testing

/// gpsd killed and started again under a running GPSDProvider.
@Suite(.timeLimit(.minutes(3)))
struct GPSDRestartTests {
    /// Kill/restart cycles to run: `LOCATIOND_GPSD_CYCLES` (default 2; the target is 20).
    static let cycles = ProcessInfo.processInfo.environment["LOCATIOND_GPSD_CYCLES"].flatMap(Int.init) ?? 2

    static func isFix(_ event: ProviderEvent) -> Bool {
        if case .fix = event { true } else { false }
    }

    static func isDisconnected(_ event: ProviderEvent) -> Bool {
        if case .disconnected = event { true } else { false }
    }

    @Test func fixesResumeAfterEachKill() async throws {
        let track = TestTrack()
        let file = try track.write()
        let port = try GPSFake.freeLoopbackPort()
        let log = CapturedLog()
        let provider = GPSDProvider(
            host: "127.0.0.1", port: port, backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(400)),
            pollInterval: .milliseconds(100), logger: log.logger())
        let events = Mailbox<ProviderEvent>()
        let task = Task { try await provider.run { events.post($0) } }
        defer { task.cancel() }

        var survived = 0
        for cycle in 1...Self.cycles {
            let gpsfake = try GPSFake(log: file, port: port)
            defer { gpsfake.stop() }
            let event = try await events.next(within: .seconds(15), "a fix in cycle \(cycle)", where: Self.isFix)
            guard case .fix(let fix) = event else { return }
            #expect(track.contains(lat: fix.lat!, lon: fix.lon!))
            gpsfake.killGPSD()
            _ = try await events.next(within: .seconds(5), "the loss in cycle \(cycle)", where: Self.isDisconnected)
            survived = cycle
        }
        #expect(survived == Self.cycles)
        print("gpsd kill/restart cycles survived with fixes resuming: \(survived)")
    }
}
