import Foundation
import LocationState
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Testing

/// The state and the request handling of an ``UplinkServer``: what it stored and
/// received, its connections, and the tests waiting on it.
final class UplinkServerCore: Sendable {
    fileprivate struct Held {
        let index: Int
        let keepAlive: Bool
        let channel: any Channel
        let memory: ConnectionMemory
    }

    fileprivate struct Waiter {
        let id: Int
        let isMet: @Sendable (State) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    struct State {
        var behaviour = UplinkServer.Behaviour.normal
        var stored: [StoredFix] = []
        var requests: [RecordedRequest] = []
        /// How many connections were accepted.
        var connections = 0
        fileprivate var listener: (any Channel)?
        fileprivate var open: [ObjectIdentifier: any Channel] = [:]
        fileprivate var held: [Held] = []
        fileprivate var waiters: [Waiter] = []
        fileprivate var nextWaiter = 0
        fileprivate var expired: Set<Int> = []
    }

    let kind: UplinkServer.Kind
    private let tls: NIOSSLContext?
    private let state = Locked(State())

    init(kind: UplinkServer.Kind, tls: NIOSSLContext?) {
        self.kind = kind
        self.tls = tls
    }

    func snapshot<T: Sendable>(_ read: (State) -> T) -> T { state.withLock { read($0) } }

    /// Binds 127.0.0.1 at a free port below the kernel's ephemeral range (20000-31999) and
    /// returns it: a port the kernel hands out for clients' connections could be taken by
    /// one while the server is stopped, and ``listen(port:)`` after ``stop()`` would fail.
    func listenAtFreePort() async throws -> Int {
        for _ in 0..<100 {
            do {
                return try await listen(port: Int.random(in: 20_000..<32_000))
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                continue
            }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Binds 127.0.0.1:`port` and returns it.
    func listen(port: Int) async throws -> Int {
        let tls = tls
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    if let tls { try pipeline.addHandler(NIOSSLServerHandler(context: tls)) }
                    try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
                    try pipeline.addHandler(UplinkConnectionHandler(core: self))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        state.withLock { $0.listener = channel }
        return channel.localAddress?.port ?? port
    }

    /// Closes the listener and every connection; the requests held hanging are closed unanswered.
    func stop() async {
        let channels = state.withLock { state in
            for held in state.held { state.requests[held.index].outcome = .closedWithoutAnswer }
            let channels = [state.listener].compactMap { $0 } + Array(state.open.values)
            (state.listener, state.open, state.held) = (nil, [:], [])
            return channels
        }
        for channel in channels { try? await channel.close() }
        notify()
    }

    /// Closes what is still open, without waiting: the server was released without ``stop()``.
    func abandon() {
        let channels = state.withLock { [$0.listener].compactMap { $0 } + Array($0.open.values) }
        for channel in channels { channel.close(promise: nil) }
    }

    func opened(_ channel: any Channel) {
        state.withLock { state in
            state.open[ObjectIdentifier(channel)] = channel
            state.connections += 1
        }
    }

    func closed(_ channel: any Channel) {
        state.withLock { _ = $0.open.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    func setBehaviour(_ behaviour: UplinkServer.Behaviour) {
        let released: [Held] = state.withLock { state in
            state.behaviour = behaviour
            if case .hang = behaviour { return [] }
            defer { state.held = [] }
            return state.held
        }
        for held in released {
            held.channel.eventLoop.execute {
                self.handle(
                    held.index, as: behaviour, keepAlive: held.keepAlive, channel: held.channel, memory: held.memory)
            }
        }
    }

    /// A whole request arrived on `channel`: recorded (and held, when hanging), then
    /// handled as the behaviour says.
    func received(_ request: RecordedRequest, keepAlive: Bool, channel: any Channel, memory: ConnectionMemory) {
        let (index, behaviour) = state.withLock { state in
            state.requests.append(request)
            let index = state.requests.count - 1
            if case .hang = state.behaviour {
                state.held.append(Held(index: index, keepAlive: keepAlive, channel: channel, memory: memory))
            }
            return (index, state.behaviour)
        }
        notify()
        handle(index, as: behaviour, keepAlive: keepAlive, channel: channel, memory: memory)
    }

    private func handle(
        _ index: Int, as behaviour: UplinkServer.Behaviour, keepAlive: Bool, channel: any Channel,
        memory: ConnectionMemory
    ) {
        switch behaviour {
        case .hang: return
        case .answer(let status, let headers, let body):
            send(.answer(status: status, headers: headers, body: body), for: index, keepAlive: keepAlive, on: channel)
        case .normal:
            send(decide(index, memory: memory), for: index, keepAlive: keepAlive, on: channel)
        case .closeMidReply:
            let reply = decide(index, memory: memory)
            guard case .answer(let status, _, _) = reply else {
                return send(reply, for: index, keepAlive: keepAlive, on: channel)
            }
            record(.closedMidAnswer(status: status), for: index)
            let bytes = Self.bytes(of: reply, keepAlive: keepAlive)
            // The status line whole, then half of the rest: never a complete head and body.
            let statusLine = (bytes.firstIndex(of: UInt8(ascii: "\n")) ?? 0) + 1
            let cut = statusLine + (bytes.count - statusLine) / 2
            channel.writeAndFlush(ByteBuffer(bytes: bytes[..<cut])).whenComplete { _ in channel.close(promise: nil) }
        case .slow(let delay):
            let reply = decide(index, memory: memory)
            let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
            channel.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
                self.send(reply, for: index, keepAlive: keepAlive, on: channel)
            }
        }
    }

    /// Runs the server's rules on request `index`; keeps what they keep.
    private func decide(_ index: Int, memory: ConnectionMemory) -> UplinkReply {
        let request = state.withLock { $0.requests[index] }
        let stored = state.withLock { $0.stored }
        var context = UplinkRuleContext(connectionDevice: memory.device.withLock { $0 }) { device in
            stored.last { $0.device == device }
        }
        let decision = kind.decide(request, context: &context)
        memory.device.withLock { [device = context.connectionDevice] in $0 = device }
        state.withLock { state in
            state.requests[index].dropped = decision.dropped
            for fix in decision.kept {
                if kind.upserts, let row = state.stored.firstIndex(where: { DawarichRules.sameKey($0, fix) }) {
                    state.stored[row] = fix
                } else {
                    state.stored.append(fix)
                }
            }
        }
        notify()
        return decision.reply
    }

    private func send(_ reply: UplinkReply, for index: Int, keepAlive: Bool, on channel: any Channel) {
        switch reply {
        case .closeWithoutAnswer:
            record(.closedWithoutAnswer, for: index)
            channel.close(promise: nil)
        case .answer(let status, _, _):
            record(.answered(status: status), for: index)
            let written = channel.writeAndFlush(ByteBuffer(bytes: Self.bytes(of: reply, keepAlive: keepAlive)))
            if !keepAlive { written.whenComplete { _ in channel.close(promise: nil) } }
        }
    }

    private func record(_ outcome: RecordedRequest.Outcome, for index: Int) {
        state.withLock { $0.requests[index].outcome = outcome }
        notify()
    }

    /// An answer as it goes on the wire: status line, the headers, `Content-Length`, the body.
    private static func bytes(of reply: UplinkReply, keepAlive: Bool) -> [UInt8] {
        guard case .answer(let status, let headers, let body) = reply else { return [] }
        let reason = HTTPResponseStatus(statusCode: status).reasonPhrase
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n"
        if !keepAlive { head += "Connection: close\r\n" }
        return Array((head + "\r\n" + body).utf8)
    }

    /// Waits until `value` gives a result from the state; records an issue and throws
    /// after `limit`.
    func wait<T: Sendable>(
        for description: String, within limit: Duration, sourceLocation: SourceLocation,
        _ value: @escaping @Sendable (State) -> T?
    ) async throws -> T {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timeout = Task {
            try await Task.sleep(for: limit)
            self.expire(id)
        }
        defer { timeout.cancel() }
        let met = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let now: Bool? = state.withLock { state in
                if value(state) != nil { return true }
                if state.expired.contains(id) { return false }
                state.waiters.append(Waiter(id: id, isMet: { value($0) != nil }, continuation: continuation))
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        guard met, let result = snapshot(value) else {
            let seen = snapshot { "\($0.stored.count) stored, \($0.requests.count) requests" }
            Issue.record(
                "the \(kind) stand-in: no \(description) within \(limit) (\(seen))", sourceLocation: sourceLocation)
            throw UplinkServerTimeout(description: description)
        }
        return result
    }

    /// Wakes the waiters whose condition now holds.
    private func notify() {
        let woken = state.withLock { state in
            let met = state.waiters.filter { $0.isMet(state) }
            state.waiters.removeAll { waiter in met.contains { $0.id == waiter.id } }
            return met.map(\.continuation)
        }
        for continuation in woken { continuation.resume(returning: true) }
    }

    private func expire(_ id: Int) {
        let expired = state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                state.expired.insert(id)
                return CheckedContinuation<Bool, Never>?.none
            }
            return state.waiters.remove(at: index).continuation
        }
        expired?.resume(returning: false)
    }
}

/// Thrown when a stand-in's awaited state does not come within the time limit.
package struct UplinkServerTimeout: Error, CustomStringConvertible {
    package var description: String
}

/// What Traccar remembers of one connection: the device of its session.
final class ConnectionMemory: Sendable {
    let device = Locked<String?>(nil)
}
