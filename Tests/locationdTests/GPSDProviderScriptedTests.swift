import Foundation
import LocationTestSupport
import Testing

@testable import LocationMQTT
@testable import LocationProviders
@testable import LocationState
@testable import LocationStores

/// GPSDProvider's connection logic against scripted gpsd sessions.
@Suite(.timeLimit(.minutes(10)))
struct GPSDProviderScriptedTests {
    static let device = "/dev/ttyUSB0"
    static let fix = Location(
        time: Date(timeIntervalSince1970: 1_795_000_000), mode: .threeD, lat: 48.1, lon: 11.5, altHAE: 592,
        source: .gpsd, device: device)
    static let greeting: [ScriptedGPSD.Step] = [.message(.version(release: "3.22")), .message(.devices([device]))]

    /// Runs a provider over `script`; returns its events, its log and the task.
    static func run(
        _ script: ScriptedGPSD, greetingTimeout: Duration = .seconds(5)
    ) -> (events: Mailbox<ProviderEvent>, log: CapturedLog, task: Task<Void, Error>) {
        let events = Mailbox<ProviderEvent>()
        let log = CapturedLog()
        let provider = GPSDProvider.scripted(script, logger: log.logger(), greetingTimeout: greetingTimeout)
        let task = Task { try await provider.run { events.post($0) } }
        return (events, log, task)
    }

    static func isDisconnected(_ event: ProviderEvent) -> Bool {
        if case .disconnected = event { true } else { false }
    }

    @Test func unreachableAtStartIsReportedOnceThenConnects() async throws {
        let script = ScriptedGPSD([
            .refuse("connection refused"), .refuse("connection refused"), .refuse("connection refused"),
            .session(Self.greeting + [.message(.tpv(Self.fix))]),
        ])
        let (events, log, task) = Self.run(script)
        defer { task.cancel() }
        let down = try await events.next(where: Self.isDisconnected)
        #expect(
            down
                == .disconnected(
                    reason: LocationError.gpsdUnreachable(host: "gpsd.test", port: 2947, reason: "connection refused")
                        .message))
        #expect(try await events.next() == .connected)
        #expect(try await events.next() == .fix(Self.fix))
        #expect(script.connectionAttempts == 4)
        let warnings = log.lines.pending.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == 1, "\(warnings)")
        #expect(warnings.first?.contains("gpsd.test:2947 is not reachable (connection refused)") == true)
    }

    @Test func goneLaterReconnectsWithoutRestarting() async throws {
        let script = ScriptedGPSD([
            .session(Self.greeting + [.message(.tpv(Self.fix)), .fail("the connection was closed or broke")]),
            .refuse("connection refused"),
            .session(Self.greeting + [.message(.tpv(Self.fix))]),
        ])
        let (events, log, task) = Self.run(script)
        defer { task.cancel() }
        #expect(try await events.next() == .connected)
        #expect(try await events.next() == .fix(Self.fix))
        #expect(Self.isDisconnected(try await events.next()))
        #expect(try await events.next() == .connected)
        #expect(try await events.next() == .fix(Self.fix))
        let lines = log.lines.pending
        #expect(lines.filter { $0.hasPrefix("warning") }.count == 1)
        #expect(lines.contains { $0.hasPrefix("notice") && $0.contains("is back") })
    }

    @Test func noDeviceIsNotAFix() async throws {
        let noFix = Location(time: Self.fix.time, mode: .noFix, source: .gpsd, device: Self.device)
        let script = ScriptedGPSD([
            .session([
                .message(.version(release: "3.22")), .message(.devices([])),
                .message(.device(path: Self.device, active: true)),
                .message(.tpv(noFix)),
                .message(.device(path: Self.device, active: false)),
            ])
        ])
        let (events, _, task) = Self.run(script)
        defer { task.cancel() }
        #expect(try await events.next() == .disconnected(reason: "gpsd at gpsd.test:2947 has no GPS device."))
        #expect(try await events.next() == .connected)
        #expect(try await events.next() == .noFix(Self.fix.time))
        #expect(try await events.next() == .disconnected(reason: "gpsd at gpsd.test:2947 has no GPS device."))
    }

    @Test func satellitesFromSkyJoinTheNextFix() async throws {
        let script = ScriptedGPSD([
            .session(
                Self.greeting + [.partial, .message(.sky(satellitesUsed: 9, hdop: 0.8)), .message(.tpv(Self.fix))])
        ])
        let (events, _, task) = Self.run(script)
        defer { task.cancel() }
        let fix = try await events.next { if case .fix = $0 { true } else { false } }
        var expected = Self.fix
        expected.satellitesUsed = 9
        expected.hdop = 0.8
        #expect(fix == .fix(expected))
    }

    @Test func somethingElseOnThePortIsNotGPSD() async throws {
        let script = ScriptedGPSD([
            .session([.message(.unrecognized(excerpt: "SSH-2.0-OpenSSH_9.2"))]),
            .session(Self.greeting),
        ])
        let (events, log, task) = Self.run(script)
        defer { task.cancel() }
        guard case .disconnected(let reason) = try await events.next() else {
            Issue.record("expected a disconnection first")
            return
        }
        #expect(reason.contains("does not speak gpsd's protocol"))
        #expect(reason.contains("SSH-2.0"))
        #expect(try await events.next() == .connected)
        #expect(log.lines.pending.contains { $0.hasPrefix("warning") && $0.contains("SSH-2.0") })
    }

    @Test func aSilentPeerTimesOut() async throws {
        let script = ScriptedGPSD([.session([]), .session(Self.greeting)])
        let (events, _, task) = Self.run(script, greetingTimeout: .milliseconds(100))
        defer { task.cancel() }
        guard case .disconnected(let reason) = try await events.next() else {
            Issue.record("expected a disconnection first")
            return
        }
        #expect(reason.contains("no gpsd greeting"))
        #expect(try await events.next() == .connected)
    }

    @Test func garbageAfterTheGreetingIsLoggedOnceAndSkipped() async throws {
        let script = ScriptedGPSD([
            .session(
                Self.greeting + [
                    .message(.unrecognized(excerpt: "#$%")), .message(.unrecognized(excerpt: "{{{")),
                    .message(.error("unrecognized request")), .message(.tpv(Self.fix)),
                ])
        ])
        let (events, log, task) = Self.run(script)
        defer { task.cancel() }
        _ = try await events.next { if case .fix = $0 { true } else { false } }
        let warnings = log.lines.pending.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == 2, "\(warnings)")
        #expect(warnings.contains { $0.contains("not a gpsd report") && $0.contains("#$%") })
        #expect(warnings.contains { $0.contains("unrecognized request") })
    }

    @Test func cancellationStopsTheReader() async throws {
        let script = ScriptedGPSD([.session(Self.greeting)])
        let (events, _, task) = Self.run(script)
        #expect(try await events.next() == .connected)
        task.cancel()
        try await task.value
        let attempts = script.connectionAttempts
        #expect(attempts == 1)
    }
}
