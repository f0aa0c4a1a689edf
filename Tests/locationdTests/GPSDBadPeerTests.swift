import CGPS
import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationProviders
@testable import LocationState
@testable import LocationStores

/// GPSDProvider (with the real libgps) against peers that are not a healthy gpsd.
@Suite(.timeLimit(.minutes(10)))
struct GPSDBadPeerTests {
    static let version = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n"
    static let devices =
        #"{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyFAKE","activated":"2026-11-22T12:00:00.000Z"}]}"#
        + "\n"
    static let tpv =
        #"{"class":"TPV","device":"/dev/ttyFAKE","mode":2,"time":"2026-11-22T12:00:01.000Z","lat":48.1,"lon":11.5}"#
        + "\n"

    static func provider(port: Int, host: String = "127.0.0.1", log: CapturedLog) -> GPSDProvider {
        GPSDProvider(
            host: host, port: port, backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)),
            pollInterval: .milliseconds(100), greetingTimeout: .seconds(1), logger: log.logger())
    }

    static func start(_ provider: GPSDProvider) -> (Mailbox<ProviderEvent>, Task<Void, Error>) {
        let events = Mailbox<ProviderEvent>()
        return (events, Task { try await provider.run { events.post($0) } })
    }

    static func reason(of event: ProviderEvent) -> String? {
        if case .disconnected(let reason) = event { reason } else { nil }
    }

    @Test func aSocketAboveSelectsLimitIsMovedBelowIt() throws {
        // gps_waiting uses select(2), and glibc aborts the process for a descriptor of
        // 1024 or more. A real connect cannot be made to land that high here without
        // taking every lower descriptor from the tests running alongside, so the
        // session's socket is put there by hand: a socket pair, one end at 1500.
        let high: Int32 = 1500
        let limit = raiseDescriptorLimit(to: 4096)
        try #require(limit > rlim_t(high), "the descriptor limit \(limit) is too low for this test")
        var pair: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[1]) }
        try #require(dup2(pair[0], high) == high)
        close(pair[0])
        let data = try #require(locd_gps_data_new())
        defer { locd_gps_data_free(data) }
        locd_set_fd(data, high)

        #expect(LibGPSSession.moveBelowSelectLimit(data))
        let moved = locd_fd(data)
        defer { close(moved) }
        #expect(moved >= 0 && moved < 1024)
        #expect(fcntl(high, F_GETFD) == -1, "the descriptor above the limit is closed")
        // The moved descriptor is the same connection.
        #expect(write(pair[1], "x\n", 2) == 2)
        var byte: UInt8 = 0
        #expect(read(moved, &byte, 1) == 1 && byte == UInt8(ascii: "x"))
    }

    @Test func aPeerThatVanishesSilentlyIsProbedByKeepalive() throws {
        // Loopback cannot lose a peer; what can be checked is that the session's
        // socket carries the probes that find one within about 25 s.
        let server = try FakeGPSDServer(reply: Data((Self.version + Self.devices).utf8), then: .holdOpen)
        defer { server.stop() }
        let session = try LibGPSSession.connect(host: "127.0.0.1", port: server.port, readTimeout: .seconds(5))
        defer { session.close() }
        func option(_ level: Int32, _ name: Int32) -> Int32 {
            var value: Int32 = -1
            var length = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(session.descriptor, level, name, &value, &length)
            return value
        }
        let tcp = Int32(IPPROTO_TCP)
        #expect(option(SOL_SOCKET, SO_KEEPALIVE) == 1)
        #expect(option(tcp, TCP_KEEPIDLE) == 10)
        #expect(option(tcp, TCP_KEEPINTVL) == 5)
        #expect(option(tcp, TCP_KEEPCNT) == 3)
        #expect(option(tcp, TCP_USER_TIMEOUT) == 25_000)
    }

    @Test func aConnectThatNeverReturnsDoesNotHoldUpTheStop() async throws {
        // libgps connects with a blocking connect(2), which waits about two minutes for
        // a host that drops the SYN. Loopback cannot drop SYNs without firewall rules,
        // so the connect is stood in for by one that blocks (and ignores the stop) for
        // two minutes, then fails as libgps would.
        let gaveUp = DispatchSemaphore(value: 0)
        let returned = DispatchSemaphore(value: 0)
        let connecting = Mailbox<Void>()
        let connector = GPSDConnector { host, port throws(GPSDConnectionError) in
            connecting.post(())
            _ = gaveUp.wait(timeout: .now() + 120)
            returned.signal()
            throw GPSDConnectionError(reason: "can't connect to host/port pair")
        }
        let log = CapturedLog()
        let provider = GPSDProvider(
            host: "192.0.2.1", port: 2947, backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)),
            pollInterval: .milliseconds(100), greetingTimeout: .seconds(1), logger: log.logger(), connector: connector)
        let events = Mailbox<ProviderEvent>()
        let task = Task { try await provider.run { events.post($0) } }
        try await connecting.next(within: .seconds(10), "the connect")
        task.cancel()
        try await task.value
        // No clock: run must not have waited for the connect, which is still blocked.
        #expect(returned.wait(timeout: .now()) == .timedOut, "run waited for the blocked connect to return")
        // The connect gives up after the provider stopped: its failure is not emitted.
        // The reader logs its end after all it does, so once that line is in, anything
        // it emitted would be in `events` already.
        gaveUp.signal()
        _ = try await log.lines.next(within: .seconds(10), "the reader's end") {
            $0.hasPrefix("debug") && $0.contains("stopped reading gpsd")
        }
        #expect(events.pending.isEmpty, "nothing is emitted after the stop: \(events.pending)")
    }

    @Test func garbageInsteadOfAGreeting() async throws {
        let server = try FakeGPSDServer(reply: Data("HTTP/1.1 400 Bad Request\r\n\r\n".utf8), then: .holdOpen)
        defer { server.stop() }
        let log = CapturedLog()
        let (events, task) = Self.start(Self.provider(port: server.port, log: log))
        defer { task.cancel() }
        let reason = try #require(Self.reason(of: try await events.next()))
        #expect(reason.contains("does not speak gpsd's protocol"), "\(reason)")
        #expect(reason.contains("HTTP/1.1 400"))
        _ = try await log.lines.next(within: .seconds(5), "a retry") {
            $0.hasPrefix("debug") && $0.contains("still no gpsd")
        }
    }

    @Test func closedInTheMiddleOfAReport() async throws {
        let reply = Self.version + Self.devices + Self.tpv + String(Self.tpv.prefix(40))
        let server = try FakeGPSDServer(reply: Data(reply.utf8), then: .close)
        defer { server.stop() }
        let log = CapturedLog()
        let (events, task) = Self.start(Self.provider(port: server.port, log: log))
        defer { task.cancel() }
        #expect(try await events.next() == .connected)
        let second = try await events.next()
        guard case .fix(let fix) = second else {
            Issue.record("expected the complete TPV as a fix, got \(second)")
            return
        }
        #expect(fix.lat == 48.1 && fix.lon == 11.5 && fix.device == "/dev/ttyFAKE" && fix.mode == .twoD)
        let reason = try #require(Self.reason(of: try await events.next()))
        #expect(reason.contains("closed"))
        // It reconnects (the fake answers again) and keeps going.
        #expect(try await events.next() == .connected)
    }

    /// The session's socket blocks in `recv` for up to the poll interval (no `select`
    /// before each read): reads that timed out on a silent gpsd leave EAGAIN behind, and
    /// the end of the connection after them must still read as the end, not as one
    /// more late line (which would spin on a closed socket).
    @Test func closedAfterASilenceIsNoticed() async throws {
        let server = try FakeGPSDServer(reply: Data((Self.version + Self.devices).utf8), then: .holdOpen)
        let timedOut = Mailbox<Void>()
        let libgps = GPSDConnector.libgps(readTimeout: .milliseconds(100))
        let connector = GPSDConnector { host, port throws(GPSDConnectionError) in
            TimeoutReportingSession(try libgps.connect(host, port), timedOut: timedOut)
        }
        let provider = GPSDProvider(
            host: "127.0.0.1", port: server.port,
            backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)),
            // A greeting late on a loaded machine is not what this test is about.
            pollInterval: .milliseconds(100), greetingTimeout: .seconds(30), logger: CapturedLog().logger(),
            connector: connector)
        let (events, task) = Self.start(provider)
        defer { task.cancel() }
        #expect(try await events.next() == .connected)
        for _ in 0..<5 { try await timedOut.next(within: .seconds(30), "a timed-out read") }
        server.stop()
        let reason = try #require(Self.reason(of: try await events.next(within: .seconds(30))))
        #expect(reason.contains("closed"), "\(reason)")
    }

    @Test func stuckInTheMiddleOfAReportStillStopsPromptly() async throws {
        let reply = Self.version + Self.devices + String(Self.tpv.prefix(40))
        let server = try FakeGPSDServer(reply: Data(reply.utf8), then: .holdOpen)
        defer { server.stop() }
        let (events, task) = Self.start(Self.provider(port: server.port, log: CapturedLog()))
        #expect(try await events.next() == .connected)
        task.cancel()
        // The fake holds the connection open until the test ends, so returning at all
        // proves the stop; the bound only turns a hang into a failure before the
        // suite's time limit (no tighter bound: a loaded machine may take seconds).
        let stopped = Mailbox<Void>()
        Task {
            try await task.value; stopped.post(())
        }
        _ = try await stopped.next(within: .seconds(30), "run to return after cancellation") { true }
    }

    @Test func aFloodWithoutNewlinesDoesNotCrash() async throws {
        let reply = Self.version + Self.devices + String(repeating: "x", count: 64 * 1024)
        let server = try FakeGPSDServer(reply: Data(reply.utf8), then: .holdOpen)
        defer { server.stop() }
        let (events, task) = Self.start(Self.provider(port: server.port, log: CapturedLog()))
        #expect(try await events.next() == .connected)
        // libgps drops an over-long line as a broken connection; the provider reconnects.
        let reason = try #require(Self.reason(of: try await events.next(within: .seconds(5))))
        #expect(reason.contains("gpsd"))
        task.cancel()
        try await task.value
    }

    @Test func aHostThatDoesNotResolve() async throws {
        let log = CapturedLog()
        let (events, task) = Self.start(Self.provider(port: 2947, host: "no-such-host.invalid", log: log))
        defer { task.cancel() }
        let reason = try #require(Self.reason(of: try await events.next(within: .seconds(20))))
        #expect(reason.contains("no-such-host.invalid:2947 is not reachable"), "\(reason)")
        _ = try await log.lines.next("the warning") { $0.hasPrefix("warning") && $0.contains("no-such-host.invalid") }
    }
}

/// A gpsd session that posts each read that timed out, so that a test can wait for them.
private final class TimeoutReportingSession: GPSDSession {
    let session: any GPSDSession
    let timedOut: Mailbox<Void>

    init(_ session: any GPSDSession, timedOut: Mailbox<Void>) {
        (self.session, self.timedOut) = (session, timedOut)
    }

    func waitForInput(timeout: Duration) -> Bool { session.waitForInput(timeout: timeout) }
    func read() throws(GPSDConnectionError) -> GPSDMessage? { try session.read() }
    func close() { session.close() }

    func next(timeout: Duration) throws(GPSDConnectionError) -> GPSDMessage? {
        let message = try session.next(timeout: timeout)
        if message == nil { timedOut.post(()) }
        return message
    }
}
