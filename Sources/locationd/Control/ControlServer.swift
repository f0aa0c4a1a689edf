import Foundation
import LocationState
import LocationStores
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's control socket: a Unix stream socket, owner-only unless the daemon's group
/// is let in, one JSON object per line.
///
/// - Important: Every resource a client can make the daemon spend is bounded: the
///   number of clients (`Limits.maxClients`; one more gets an error object and is
///   closed), the length of every request, terminated or not (`maxRequestBytes`;
///   longer is answered with an error and closes the connection, and no request of
///   that read is answered), and the output queued for a client that does not read
///   (`maxQueuedBytes`; beyond it the client is dropped, it never slows the daemon).
final class ControlServer: Sendable {
    /// The bounds on what clients may cost.
    struct Limits: Sendable {
        var maxClients = 64
        var maxRequestBytes = 4096
        var maxQueuedBytes = 256 * 1024
    }

    /// The socket's path.
    let path: String
    /// The socket's permissions: 0600, or 0660 to let the daemon's group connect.
    private let mode: mode_t
    private let responder: ControlResponder
    private let limits: Limits
    private let logger: Logger
    private let clients = Atomic<Int>(0)
    /// Clients refused since the server last had a free slot; a flood is logged once, not per client.
    private let refusedSinceFull = Atomic<Int>(0)
    private let channel = Locked<(any Channel)?>(nil)
    /// The socket file made by ``start()`` (device and inode), so that ``stop()`` removes
    /// only its own file, never one another process has put there since.
    private let boundFile = Locked<(dev: UInt64, ino: UInt64)?>(nil)

    init(path: String, mode: mode_t = 0o600, responder: ControlResponder, limits: Limits = Limits(), logger: Logger) {
        self.path = path
        self.mode = mode
        self.responder = responder
        self.limits = limits
        self.logger = logger
    }

    /// Binds the socket and gives it ``mode`` (owner-only by default).
    ///
    /// A socket file nobody answers on (left by a daemon that was killed) is replaced;
    /// one a live daemon answers on is not: taking it over would leave that daemon
    /// unreachable, so ``start()`` throws `LocationError.unavailable` instead.
    func start() async throws {
        try refuseLiveSocket()
        let responder = responder
        let limits = limits
        let logger = logger
        let server = self
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .childChannelOption(
                .writeBufferWaterMark,
                value: .init(low: limits.maxQueuedBytes / 2, high: limits.maxQueuedBytes)
            )
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let admitted = server.admit()
                    if !admitted { server.noteRefusal() }
                    try channel.pipeline.syncOperations.addHandler(
                        ControlConnection(
                            responder: responder, limits: limits, logger: logger,
                            admitted: admitted, onClose: { if admitted { server.release() } }))
                }
            }
        let channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
        guard chmod(path, mode) == 0 else {
            try? await channel.close()
            throw LocationError.cannotWrite(
                path: path, reason: "cannot set the socket's mode \(String(mode, radix: 8))")
        }
        self.channel.withLock { $0 = channel }
        var info = stat()
        if lstat(path, &info) == 0 { boundFile.withLock { $0 = (UInt64(info.st_dev), UInt64(info.st_ino)) } }
    }

    /// Throws when something answers on ``path``: another daemon (or anything else) is using it.
    private func refuseLiveSocket() throws(LocationError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw .cannotWrite(path: path, reason: "it exists and is not a socket")
        }
        let answered: Bool
        do {
            answered = try ControlClient.ask("?VERSION;", socketPath: path, timeoutSeconds: 1) != nil
        } catch  where error.kind == .usage {
            throw error
        } catch {
            answered = true
        }
        guard !answered else {
            throw .unavailable(
                "another process (a running locationd?) answers on the control socket \(path); stop it or choose another --socket"
            )
        }
    }

    /// Closes the socket and every client, and removes the socket file.
    func stop() async {
        let channel = self.channel.withLock { channel in
            defer { channel = nil }
            return channel
        }
        guard let channel else { return }
        try? await channel.close()
        var info = stat()
        if let bound = boundFile.withLock({ $0 }), lstat(path, &info) == 0,
            (UInt64(info.st_dev), UInt64(info.st_ino)) == bound
        {
            unlink(path)
        }
    }

    /// How many clients are connected now.
    var clientCount: Int { clients.load(ordering: .relaxed) }

    private func admit() -> Bool {
        let now = clients.wrappingAdd(1, ordering: .relaxed).newValue
        if now > limits.maxClients {
            clients.wrappingSubtract(1, ordering: .relaxed)
            return false
        }
        return true
    }

    private func release() {
        let now = clients.wrappingSubtract(1, ordering: .relaxed).newValue
        guard now < limits.maxClients else { return }
        let refused = refusedSinceFull.exchange(0, ordering: .relaxed)
        if refused > 0 {
            logger.notice("control socket: accepting clients again; refused \(refused) while full")
        }
    }

    /// Logs the first refusal of a burst; the count goes into the line that ends it.
    private func noteRefusal() {
        if refusedSinceFull.wrappingAdd(1, ordering: .relaxed).newValue == 1 {
            logger.notice("control socket: too many clients (\(limits.maxClients)); refusing new ones until one leaves")
        }
    }
}

/// One client's connection: splits requests, answers them in order, writes long answers a
/// page at a time, streams watches.
private final class ControlConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let responder: ControlResponder
    private let limits: ControlServer.Limits
    private let logger: Logger
    private let admitted: Bool
    private let onClose: @Sendable () -> Void
    private var pending: [UInt8] = []
    private var stopWatching: (@Sendable () -> Void)?
    /// The long answer being written (``ControlPages``), and the requests that came after
    /// it, last first, answered once it is complete.
    private var paging: ControlPages?
    private var waiting: [ControlRequest] = []
    /// Whether reading this client's requests is stopped, while a long answer is written.
    private var readingStopped = false

    init(
        responder: ControlResponder, limits: ControlServer.Limits, logger: Logger, admitted: Bool,
        onClose: @escaping @Sendable () -> Void
    ) {
        self.responder = responder
        self.limits = limits
        self.logger = logger
        self.admitted = admitted
        self.onClose = onClose
    }

    func channelActive(context: ChannelHandlerContext) {
        guard admitted else {
            Self.send(ControlReply.tooManyClients, on: context.channel)
            context.close(promise: nil)
            return
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopWatching?()
        stopWatching = nil
        onClose()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard admitted else { return }
        let buffer = unwrapInboundIn(data)
        pending.append(contentsOf: buffer.readableBytesView)
        let (requests, consumed, longest) = ControlRequest.split(pending, days: responder.days)
        pending.removeFirst(consumed)
        guard pending.count <= limits.maxRequestBytes, longest <= limits.maxRequestBytes else {
            logger.notice("control socket: request longer than \(limits.maxRequestBytes) bytes; closing the client")
            Self.send(ControlReply.error("request too long"), on: context.channel)
            context.close(promise: nil)
            return
        }
        waiting.insert(contentsOf: requests.reversed(), at: 0)
        answerWaiting(context.channel)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if paging != nil, context.channel.isWritable {
            writePages(context.channel)
            answerWaiting(context.channel)
        }
        context.fireChannelWritabilityChanged()
    }

    /// Answers the requests in order until one starts a long answer; reading stops until it
    /// is written, so that requests never pile up behind it.
    private func answerWaiting(_ channel: any Channel) {
        while paging == nil, let request = waiting.popLast() {
            answer(request, channel: channel)
        }
        guard readingStopped != (paging != nil) else { return }
        readingStopped = paging != nil
        channel.setOption(ChannelOptions.autoRead, value: !readingStopped).whenFailure { _ in }
    }

    /// Writes pages of the long answer while the client takes them; the rest waits for
    /// ``channelWritabilityChanged(context:)``.
    private func writePages(_ channel: any Channel) {
        while let pages = paging, channel.isActive, channel.isWritable {
            let page = pages.next()
            guard !page.isEmpty else {
                paging = nil
                return
            }
            var buffer = channel.allocator.buffer(capacity: page.reduce(0) { $0 + $1.utf8.count + 1 })
            for line in page {
                buffer.writeString(line)
                buffer.writeInteger(UInt8(ascii: "\n"))
            }
            channel.writeAndFlush(buffer, promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func answer(_ request: ControlRequest, channel: any Channel) {
        switch request {
        case .last:
            Self.send(ControlAnswers.last(responder.last(), now: Date()), on: channel)
        case .status:
            Self.send(responder.status(), on: channel)
        case .version:
            Self.send(ControlReply.version, on: channel)
        case .page:
            Self.send(responder.page(), on: channel)
        case .regions:
            Self.send(
                responder.regions?() ?? ControlReply.error("region monitoring is not configured (no regions file)"),
                on: channel)
        case .tiles(let zoom):
            paging = responder.tiles(zoom)
            writePages(channel)
        case .tileStatistics(let zoom):
            Self.send(responder.tileStatistics(zoom), on: channel)
        case .timeline(let range):
            paging = responder.timeline?(range) ?? .line(ControlReply.error("the timeline is not kept by this daemon"))
            writePages(channel)
        case .places(let request):
            paging = responder.places?(request) ?? .line(ControlReply.error("the timeline is not kept by this daemon"))
            writePages(channel)
        case .odometer(let request):
            Self.send(
                responder.odometer?(request) ?? ControlReply.error("the timeline is not kept by this daemon"),
                on: channel)
        case .track(let request):
            paging = responder.track?(request) ?? .line(ControlReply.error("tracks are not recorded by this daemon"))
            writePages(channel)
        case .watch:
            Self.send(ControlReply.watch(enabled: true), on: channel)
            guard stopWatching == nil else { return }
            let logger = logger
            stopWatching = responder.watch { line in
                channel.eventLoop.execute {
                    if Self.send(line, on: channel) == .dropped {
                        logger.notice("control socket: a watcher does not keep up; dropping it")
                    }
                }
            }
        case .unwatch:
            stopWatching?()
            stopWatching = nil
            Self.send(ControlReply.watch(enabled: false), on: channel)
        case .unknown(let name):
            Self.send(ControlReply.error("unrecognized request '\(name)'"), on: channel)
        case .invalid(let message):
            Self.send(ControlReply.error(message), on: channel)
        }
    }

    /// What became of a line for a client.
    private enum Delivery { case queued, dropped, gone }

    /// Queues one line for the client; closes a client whose queue is full (`.dropped`,
    /// once: after that the client is `.gone`).
    @discardableResult
    private static func send(_ line: String, on channel: any Channel) -> Delivery {
        guard channel.isActive else { return .gone }
        guard channel.isWritable else {
            channel.close(promise: nil)
            return .dropped
        }
        var buffer = channel.allocator.buffer(capacity: line.utf8.count + 1)
        buffer.writeString(line)
        buffer.writeInteger(UInt8(ascii: "\n"))
        channel.writeAndFlush(buffer, promise: nil)
        return .queued
    }
}
