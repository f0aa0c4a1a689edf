import Foundation
import Testing

@testable import LocationState

/// GPSDProvider (with the real libgps) against peers that are not a healthy gpsd.
@Suite(.timeLimit(.minutes(1)))
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

    @Test func aHostThatNeverAnswersDoesNotHoldUpTheStop() async throws {
        let silent = try SilentListener()
        defer { silent.close() }
        let log = CapturedLog()
        let events = Mailbox<ProviderEvent>()
        let provider = Self.provider(port: silent.port, log: log)
        let task = Task { try await provider.run { events.post($0) } }
        // The reader is now inside a connect that the system would wait minutes for.
        try await Task.sleep(for: .seconds(1))
        let start = ContinuousClock.now
        task.cancel()
        try await task.value
        let stoppedIn = ContinuousClock.now - start
        #expect(stoppedIn < .seconds(5), "run returned \(stoppedIn) after cancellation")
        #expect(events.pending.isEmpty, "nothing is emitted while the connect hangs or after the stop")
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
        guard case .fix(let fix) = try await events.next() else {
            Issue.record("expected the complete TPV as a fix")
            return
        }
        #expect(fix.lat == 48.1 && fix.lon == 11.5 && fix.device == "/dev/ttyFAKE" && fix.mode == .twoD)
        let reason = try #require(Self.reason(of: try await events.next()))
        #expect(reason.contains("closed"))
        // It reconnects (the fake answers again) and keeps going.
        #expect(try await events.next() == .connected)
    }

    @Test func stuckInTheMiddleOfAReportStillStopsPromptly() async throws {
        let reply = Self.version + Self.devices + String(Self.tpv.prefix(40))
        let server = try FakeGPSDServer(reply: Data(reply.utf8), then: .holdOpen)
        defer { server.stop() }
        let (events, task) = Self.start(Self.provider(port: server.port, log: CapturedLog()))
        #expect(try await events.next() == .connected)
        let cancelled = ContinuousClock.now
        task.cancel()
        try await task.value
        #expect(ContinuousClock.now - cancelled < .seconds(2))
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

/// A loopback TCP port whose listen queue is full and never accepted from, so that
/// a new connection's SYN goes unanswered: a host that never answers.
private final class SilentListener: Sendable {
    let port: Int
    private let descriptors: [Int32]

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 0) == 0
                    && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        var held = [listener]
        // Fill the queue with connections nobody accepts.
        for _ in 0..<3 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            held.append(filler)
        }
        descriptors = held
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        for descriptor in descriptors { Glibc.close(descriptor) }
    }
}
