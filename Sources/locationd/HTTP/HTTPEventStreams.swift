import Hummingbird
import LocationState
import Logging
import Synchronization

/// The clients of `GET /api/v1/events`: Server-Sent Events, each client's events in
/// the order they were sent to it.
///
/// - Important: bounded like the control socket's watchers: at most
///   ``Limits/maxClients`` streams (one more gets 503), and at most
///   ``Limits/maxQueuedBytes`` queued for a client that does not read; beyond it the
///   client's stream ends (it is dropped, and an `EventSource` reconnects when it can):
///   a slow client never slows the daemon or the other clients. A comment line every
///   ``Limits/keepaliveInterval`` lets a client that left be noticed while no event comes.
final class HTTPEventStreams: Sendable {
    /// The bounds on what event streams may cost.
    struct Limits: Sendable {
        /// Enough for the 100 pages the benchmark opens, with room to spare.
        var maxClients = 128
        /// About 15 s of 10 Hz fixes (a TPV event is some 400 bytes): a client stalled for
        /// longer is dropped; 128 stalled clients hold at most 8 MiB.
        var maxQueuedBytes = 64 * 1024
        var keepaliveInterval: Duration = .seconds(15)
    }

    /// One client's queue: the events not yet written to its connection.
    private final class Client: Sendable {
        let stream: AsyncStream<ByteBuffer>
        private let continuation: AsyncStream<ByteBuffer>.Continuation
        private let queuedBytes = Atomic<Int>(0)
        private let limit: Int

        init(limit: Int) {
            self.limit = limit
            (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
        }

        /// What became of an event for the client.
        enum Delivery { case queued, overflow, gone }

        /// Queues `bytes`; `.overflow` (and the stream ends) when the queue would exceed its bound.
        func send(_ bytes: ByteBuffer) -> Delivery {
            let queued = queuedBytes.wrappingAdd(bytes.readableBytes, ordering: .relaxed).newValue
            guard queued <= limit else {
                continuation.finish()
                return .overflow
            }
            if case .terminated = continuation.yield(bytes) { return .gone }
            return .queued
        }

        func written(_ bytes: Int) {
            queuedBytes.wrappingSubtract(bytes, ordering: .relaxed)
        }

        func finish() { continuation.finish() }
    }

    private let limits: Limits
    private let logger: Logger
    private let clients = Locked<(next: Int, open: [Int: Client], refusing: Bool)>((0, [:], false))

    init(limits: Limits = Limits(), logger: Logger) {
        self.limits = limits
        self.logger = logger
    }

    /// Sends a comment line to every stream each ``Limits/keepaliveInterval`` until cancelled.
    func keepalive() async {
        let comment = ByteBuffer(string: ":\n\n")
        while (try? await Task.sleep(for: limits.keepaliveInterval)) != nil {
            for client in clients.withLock({ Array($0.open.values) }) { _ = client.send(comment) }
        }
    }

    /// How many streams are open now.
    var count: Int { clients.withLock { $0.open.count } }

    /// A new stream's response body, or `nil` when ``Limits/maxClients`` are open.
    ///
    /// - Parameter drop: closes the client's connection, called once when its queue is full,
    ///   so that a write waiting for the client fails and the stream ends.
    /// - Parameter subscribe: attaches the client to what it reports: it receives a
    ///   `send(event, data)` function to call for each event, in order, from any
    ///   thread, and returns the function that detaches it.
    func open(
        dropping drop: @escaping @Sendable () -> Void,
        subscribe: (_ send: @escaping @Sendable (_ event: String, _ data: String) -> Void) -> @Sendable () -> Void
    ) -> ResponseBody? {
        let client = Client(limit: limits.maxQueuedBytes)
        let id: Int? = clients.withLock { clients in
            guard clients.open.count < limits.maxClients else { return nil }
            clients.next += 1
            clients.open[clients.next] = client
            clients.refusing = false
            return clients.next
        }
        guard let id else {
            let first = clients.withLock { clients in
                defer { clients.refusing = true }
                return !clients.refusing
            }
            if first {
                logger.notice("http: too many event streams (\(limits.maxClients)); refusing new ones until one ends")
            }
            return nil
        }
        let logger = logger
        let dropped = Atomic<Bool>(false)
        let cancel = subscribe { event, data in
            guard !dropped.load(ordering: .relaxed) else { return }
            if client.send(ByteBuffer(string: "event: \(event)\ndata: \(data)\n\n")) == .overflow {
                if !dropped.exchange(true, ordering: .relaxed) {
                    logger.notice("http: an event stream client does not keep up; dropping it")
                    drop()
                }
            }
        }
        return ResponseBody { [self] writer in
            defer {
                cancel()
                client.finish()
                _ = clients.withLock { $0.open.removeValue(forKey: id) }
            }
            try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
            for await chunk in client.stream {
                try await writer.write(chunk)
                client.written(chunk.readableBytes)
            }
            try await writer.finish(nil)
        }
    }

    /// Ends every stream (graceful shutdown).
    func closeAll() {
        for client in clients.withLock({ Array($0.open.values) }) { client.finish() }
    }
}
