import Foundation
import LocationTestSupport
import Testing

@testable import LocationProviders
@testable import LocationState
@testable import LocationStores

/// The automatic source: gpsd when it delivers, the simulator when it cannot.
@Suite(.timeLimit(.minutes(10)))
struct GPSDFallbackTests {
    static let realFix = Location(
        time: Date(timeIntervalSince1970: 1_795_000_000), mode: .threeD, lat: 52.52, lon: 13.405, source: .gpsd)

    static func isFix(from source: FixSource) -> @Sendable (ProviderEvent) -> Bool {
        { if case .fix(let location) = $0 { location.source == source } else { false } }
    }

    static func automatic(gpsd: any LocationProvider, log: CapturedLog) -> AutomaticProvider {
        AutomaticProvider(
            gpsd: gpsd, simulator: SimulatedProvider(seed: 3, interval: .milliseconds(20)),
            gracePeriod: .milliseconds(100), logger: log.logger())
    }

    /// An automatic provider over a hand-driven "gpsd", running; its events go to the mailbox.
    static func startAutomatic() -> (
        gpsd: ControlledProvider, log: CapturedLog, events: Mailbox<ProviderEvent>, task: Task<Void, any Error>
    ) {
        let gpsd = ControlledProvider()
        let log = CapturedLog()
        let events = Mailbox<ProviderEvent>()
        let task = Task { try await automatic(gpsd: gpsd, log: log).run { events.post($0) } }
        return (gpsd, log, events, task)
    }

    @Test func fallsBackLoudlyAndComesBackToRealFixes() async throws {
        let (gpsd, log, events, task) = Self.startAutomatic()
        defer { task.cancel() }

        gpsd.send(.connected)
        gpsd.send(.fix(Self.realFix))
        gpsd.send(.disconnected(reason: "gpsd at localhost:2947 is not reachable (connection refused)."))
        #expect(try await events.next() == .connected)
        #expect(try await events.next() == .fix(Self.realFix))
        #expect(
            try await events.next()
                == .disconnected(reason: "gpsd at localhost:2947 is not reachable (connection refused)."))

        let warning = try await log.lines.next("the fallback warning") { $0.hasPrefix("warning") }
        #expect(warning.contains("NO GPS") && warning.contains("SIMULATOR") && warning.contains("connection refused"))
        // The next event is a simulated fix: no `.connected` that would claim gpsd is back.
        let next = try await events.next()
        #expect(Self.isFix(from: .simulated)(next))
        guard case .fix(let simulated) = next else { Issue.record("not a fix: \(next)"); return }
        // The simulation starts where the real receiver was last.
        #expect(abs(simulated.lat! - 52.52) < 0.01 && abs(simulated.lon! - 13.405) < 0.01)

        // gpsd comes back: its connection alone does not end the simulation, a real fix does.
        gpsd.send(.connected)
        gpsd.send(.fix(Self.realFix))
        _ = try await events.next(where: Self.isFix(from: .gpsd))
        _ = try await log.lines.next("the switch back") { $0.hasPrefix("notice") && $0.contains("real fixes again") }
        let second = Location(time: Self.realFix.time, mode: .threeD, lat: 52.53, lon: 13.405, source: .gpsd)
        gpsd.send(.fix(second))
        // Nothing simulated is passed on after the first real fix.
        #expect(try await events.next() == .fix(second))
        #expect(log.lines.pending.filter { $0.hasPrefix("warning") }.isEmpty)
    }

    @Test func aReceiverWithoutFixIsNotReplacedBySimulation() async throws {
        let (gpsd, log, events, task) = Self.startAutomatic()
        defer { task.cancel() }
        gpsd.send(.connected)
        gpsd.send(.noFix(nil))
        #expect(try await events.next() == .connected)
        #expect(try await events.next() == .noFix(nil))
        // Then gpsd's device goes away: after the grace period, the simulator takes over.
        gpsd.send(.disconnected(reason: "gpsd at localhost:2947 has no GPS device."))
        _ = try await events.next(where: Self.isFix(from: .simulated))
        let warning = try await log.lines.next("the fallback warning") { $0.hasPrefix("warning") }
        #expect(warning.contains("has no GPS device"))
    }

    /// A real GPSDProvider pointed at a port where no gpsd listens, then a gpsd appears there.
    @Test func noGPSDAtAllThenOneAppears() async throws {
        let port = try GPSFake.freeLoopbackPort()
        let log = CapturedLog()
        let gpsd = GPSDProvider(
            host: "127.0.0.1", port: port, backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)),
            pollInterval: .milliseconds(100), logger: log.logger(label: "gpsd"))
        let events = Mailbox<ProviderEvent>()
        let task = Task { try await Self.automatic(gpsd: gpsd, log: log).run { events.post($0) } }
        defer { task.cancel() }

        do {
            // The start of a full run is its busiest moment: 60 s bounds a hang, not the speed.
            _ = try await events.next(within: .seconds(60), "a simulated fix", where: Self.isFix(from: .simulated))
        } catch {
            Issue.record("no simulated fix; the log:\n\(log.lines.pending.suffix(8).joined(separator: "\n"))")
            throw error
        }
        let warning = try await log.lines.next("the fallback warning") { $0.contains("SIMULATOR") }
        #expect(warning.hasPrefix("warning") && warning.contains("127.0.0.1:\(port) is not reachable"), "\(warning)")

        let track = TestTrack()
        let gpsfake = try GPSFake(log: try track.write(), port: port)
        defer { gpsfake.stop() }
        guard
            case .fix(let real) = try await gpsfake.explaining(
                log,
                {
                    try await events.next(within: .seconds(30), "a real fix", where: Self.isFix(from: .gpsd))
                })
        else { Issue.record("a real fix was not a fix"); return }
        #expect(track.contains(lat: real.lat!, lon: real.lon!))
        _ = try await log.lines.next("the switch back") { $0.contains("real fixes again") }
    }
}
