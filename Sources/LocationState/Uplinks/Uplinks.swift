import Foundation
import LocationState
import LocationTimeline
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Sends the device's fixes to HTTP servers, several at once, nothing lost: every fix the
/// publishing policy lets go is appended to the ``UplinkOutbox`` once, and each target's
/// sender takes the fixes after its own cursor, in order, so that a target that is away
/// holds up none of the others.
///
/// A sender sends one request at a time (one fix, or an Overland batch) and moves its
/// cursor only when the answer says delivered (``UplinkAnswer``). A failure to reach
/// the server, a timeout or a 5xx is retried with backoff and jitter (1 s doubling to
/// 5 min; `Retry-After` when the server gives one); a refusal waits ``Timeouts/refusalRetry``.
/// Each episode is one log line, and its end another.
///
/// After an outage, a target whose server shows the newest fix time as the current
/// position gets the newest fix first, then the backlog in order; one that shows the
/// last arrival (Home Assistant) gets the backlog in order, or with `history = latest`
/// only the newest fix.
public actor Uplinks {
    /// How long a sender waits for the network and for a refusing server.
    public struct Timeouts: Sendable {
        /// Connecting at most.
        public var connect = Duration.seconds(5)
        /// The server's silence in a reply at most.
        public var read = Duration.seconds(20)
        /// A whole request at most, from the start of connecting.
        public var request = Duration.seconds(30)
        /// How long a refused target waits before it is tried again.
        public var refusalRetry = Duration.seconds(300)

        public init() {}
    }

    /// The retries' backoff: from 1 s doubling to 5 minutes, each wait drawn between half
    /// and all of it (jitter), so that several daemons do not come back in step.
    static let retryBackoff = Backoff(initial: .seconds(1), maximum: .seconds(300))
    /// A backlog whose fixes span more than this is an outage's: the newest goes first.
    static let outageSpan = 5.0

    private struct Sender {
        var target: UplinkTarget
        var key: String
        var client: UplinkClient
        var password: String?
        var token: String?
        var cursor: UplinkOutbox.Cursor
        var status: UplinkStatus
        var backoff = Uplinks.retryBackoff
        var wake: AsyncStream<Void>.Continuation
        var wakes: AsyncStream<Void>
        /// The fix being sent ahead of the backlog (the newest, after an outage).
        var sendingAhead: Int64?
        /// Fixes read from the outbox and not yet delivered, oldest first.
        var readAhead: ArraySlice<UplinkOutbox.Fix> = []
    }

    private let outbox: UplinkOutbox
    private var senders: [Sender]
    private let policy: PublishingPolicy
    private let timeouts: Timeouts
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    /// What the publishing policy decides by: the last fix let go, and when the last stop
    /// that went out began. Read and written on the caller's thread (``admit(_:motion:at:)``).
    private nonisolated let gate: Locked<Gate>
    private struct Gate {
        var lastOffered: (fix: Location, at: Date)?
        var lastStop: Date?
    }
    private nonisolated let hasTargets: Bool
    private var deliveredSincePrune = 0
    /// The targets' statuses, readable from any thread (the control socket, HTTP).
    public nonisolated let statuses: Locked<[UplinkStatus]>

    /// Opens the outbox in `directory`, reads the targets' secrets and makes their clients.
    ///
    /// - Throws: ``LocationError`` (a secret or CA file that cannot be read, an outbox that
    ///   cannot be opened): one line, exit 64 or the file's code at start.
    public init(
        targets: [UplinkTarget], directory: URL, policy: PublishingPolicy = PublishingPolicy(),
        bounds: UplinkOutbox.Bounds = UplinkOutbox.Bounds(), timeouts: Timeouts = Timeouts(),
        eventLoopGroup: any EventLoopGroup,
        logger: Logger = Logger(label: "locationd.uplinks"),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(LocationError) {
        let outbox = try UplinkOutbox(directory: directory, bounds: bounds, logger: logger)
        let keys = targets.map(Self.key)
        let cursors = try outbox.cursors(for: keys)
        var senders: [Sender] = []
        for (target, key) in zip(targets, keys) {
            let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
            var sender = Sender(
                target: target, key: key,
                client: try UplinkClient(url: target.url, caFile: target.caFile, timeouts: timeouts),
                password: try target.password?.value(environment: environment),
                token: try target.token?.value(environment: environment),
                cursor: cursors[key] ?? UplinkOutbox.Cursor(delivered: outbox.newestID),
                status: UplinkStatus(target: target), wake: wake, wakes: wakes)
            sender.status.backlog = Self.backlog(sender, outbox)
            senders.append(sender)
        }
        self.outbox = outbox
        self.senders = senders
        hasTargets = !senders.isEmpty
        gate = Locked(Gate())
        self.policy = policy
        self.eventLoopGroup = eventLoopGroup
        self.timeouts = timeouts
        self.logger = logger
        statuses = Locked(senders.map(\.status))
    }

    /// The cursor's key: the target's name, protocol and URL without its secrets, so that
    /// a target pointed elsewhere starts afresh instead of getting another server's backlog.
    static func key(_ target: UplinkTarget) -> String {
        "\(target.name) \(target.protocol.rawValue) \(target.maskedURL)"
    }

    /// A new fix (one per epoch): appended for the targets when ``admit(_:motion:at:)``
    /// lets it go.
    public func offer(_ fix: Location, motion: Motion?, at now: Date = Date()) {
        if let admitted = admit(fix, motion: motion, at: now) { append(admitted) }
    }

    /// The motion changed: a stop goes out at once with the last fix offered, as over MQTT
    /// (``admitMotion(_:at:)``).
    public func motionChanged(_ motion: Motion, at now: Date = Date()) {
        if let admitted = admitMotion(motion, at: now) { append(admitted) }
    }

    /// What goes to the outbox: a fix let go by the publishing policy, or a stop.
    public struct Admitted: Sendable {
        let fix: Location
        let moving: Bool?
        let at: Date
    }

    /// Whether a new fix goes out, decided at once on the caller's thread: when it is a
    /// real one (from gpsd or a replayed track, never simulated or restored: a server would
    /// keep it as history) with a position and a time, and when the publishing policy lets
    /// it go. Hand what it returns to ``append(_:)``, in the order the fixes came.
    ///
    /// The daemon asks this on its listeners' queue for every epoch, so that only the few
    /// fixes that go out reach the actor (``offer(_:motion:at:)`` is both in one call).
    public nonisolated func admit(_ fix: Location, motion: Motion?, at now: Date = Date()) -> Admitted? {
        guard hasTargets, fix.source == .gpsd || fix.source == .replay, fix.hasPosition, fix.time != nil else {
            return nil
        }
        return gate.withLock { gate in
            guard policy.shouldPublish(fix, at: now, last: gate.lastOffered, motion: motion) else { return nil }
            gate.lastOffered = (fix, now)
            return Admitted(fix: fix, moving: Self.moving(motion), at: now)
        }
    }

    /// Whether a change of motion sends anything: a stop goes out at once with the last
    /// fix admitted; the same stop again (its place renamed) sends nothing.
    public nonisolated func admitMotion(_ motion: Motion, at now: Date = Date()) -> Admitted? {
        gate.withLock { gate in
            guard let since = motion.stoppedSince, since != gate.lastStop, let last = gate.lastOffered else {
                return nil
            }
            gate.lastStop = since
            return Admitted(fix: last.fix, moving: false, at: now)
        }
    }

    private static func moving(_ motion: Motion?) -> Bool? {
        switch motion {
        case .moving: true
        case .stopped: false
        case .unknown, nil: nil
        }
    }

    /// Appends what ``admit(_:motion:at:)`` or ``admitMotion(_:at:)`` let go to the outbox
    /// and wakes the senders. A fix the outbox could not take is logged; the next fix is
    /// then let go at once.
    public func append(_ admitted: Admitted) {
        do {
            try outbox.append(admitted.fix, moving: admitted.moving, at: admitted.at)
        } catch {
            logger.error("uplink outbox: \(error.message); this fix is not sent")
            gate.withLock { gate in
                if gate.lastOffered?.at == admitted.at, gate.lastOffered?.fix == admitted.fix { gate.lastOffered = nil }
            }
            return
        }
        for index in senders.indices {
            senders[index].status.backlog = Self.backlog(senders[index], outbox)
            senders[index].wake.yield()
        }
        publishStatuses()
    }

    /// Runs every target's sender until cancelled, then closes the connections.
    public func run() async {
        let connections = senders.map { $0.client.open(on: eventLoopGroup) }
        await withTaskGroup(of: Void.self) { group in
            for index in senders.indices {
                let (wakes, connection) = (senders[index].wakes, connections[index])
                group.addTask { await self.runSender(index, wakes: wakes, connection: connection) }
            }
        }
        for connection in connections { await connection.close() }
    }

    private func runSender(_ index: Int, wakes: AsyncStream<Void>, connection: UplinkConnection) async {
        var iterator = wakes.makeAsyncIterator()
        while !Task.isCancelled {
            guard let request = nextRequest(index) else {
                guard await iterator.next() != nil else { return }
                continue
            }
            if request.isEmpty {
                _ = record(index, request, .delivered, words: "")
                continue
            }
            let answer: UplinkAnswer
            let words: String
            do {
                let reply = try await senders[index].client.send(request, with: connection)
                (answer, words) = UplinkAnswer.read(reply, from: senders[index].target)
            } catch {
                // Stopping: the request is given up, its fixes stay for the next start.
                if Task.isCancelled { return }
                words = Self.describe(error)
                answer = .retry(reason: words, after: nil)
            }
            guard let wait = record(index, request, answer, words: words) else { continue }
            do {
                try await Task.sleep(for: wait)
            } catch {
                return
            }
        }
    }

    /// The next request for sender `index`, nil when it has every fix.
    private func nextRequest(_ index: Int) -> UplinkRequest? {
        let target = senders[index].target
        var cursor = senders[index].cursor
        senders[index].sendingAhead = nil
        do {
            var pending = try readAhead(index)
            // The backlog before the fix sent ahead is through: the cursor moves over it.
            if let ahead = cursor.ahead, pending.first.map({ $0.id >= ahead }) ?? true {
                cursor = UplinkOutbox.Cursor(delivered: max(ahead, cursor.delivered))
                try moveCursor(index, to: cursor)
                pending = try readAhead(index)
            }
            guard let first = pending.first else { return nil }
            let newestID = outbox.newestID
            if target.history == .latest, newestID > first.id, let newest = try outbox.fix(newestID) {
                senders[index].status.skipped += Int(newestID - 1 - cursor.delivered)
                try moveCursor(index, to: UplinkOutbox.Cursor(delivered: newestID - 1))
                return request(index, [newest])
            }
            if cursor.ahead == nil, !target.keepsCurrentByArrival, newestID > first.id,
                let newest = try outbox.fix(newestID), let newTime = newest.location.time,
                let oldTime = first.location.time, newTime.timeIntervalSince(oldTime) > Self.outageSpan
            {
                senders[index].sendingAhead = newestID
                return request(index, [newest])
            }
            return request(index, pending.prefix { fix in cursor.ahead.map { fix.id < $0 } ?? true })
        } catch {
            logger.error("uplink \(target.name): \(error.message)")
            return nil
        }
    }

    /// The fixes after sender `index`'s cursor, from those it read ahead (one read of the
    /// outbox serves many one-fix requests), read again when it has taken them all.
    private func readAhead(_ index: Int) throws(LocationError) -> ArraySlice<UplinkOutbox.Fix> {
        let delivered = senders[index].cursor.delivered
        var fixes = senders[index].readAhead.drop { $0.id <= delivered }
        if fixes.isEmpty {
            fixes = try outbox.fixes(after: delivered, limit: Self.readAheadLimit)[...]
        }
        senders[index].readAhead = fixes
        return fixes
    }

    /// Fixes read from the outbox at once: an Overland batch.
    private static let readAheadLimit = UplinkRequest.overlandBatch

    private func request(_ index: Int, _ fixes: some Collection<UplinkOutbox.Fix>) -> UplinkRequest? {
        let sender = senders[index]
        return UplinkRequest.make(for: sender.target, fixes: fixes, password: sender.password, token: sender.token)
    }

    private func moveCursor(_ index: Int, to cursor: UplinkOutbox.Cursor) throws(LocationError) {
        try outbox.setCursor(cursor, for: senders[index].key)
        senders[index].cursor = cursor
    }

    /// Takes in the answer to `request`; returns how long to wait before the next try, nil
    /// to go on at once.
    private func record(_ index: Int, _ request: UplinkRequest, _ answer: UplinkAnswer, words: String) -> Duration? {
        let now = Date()
        var status = senders[index].status
        defer {
            senders[index].status = status
            publishStatuses()
        }
        let name = "uplink \(status.name) (\(status.url))"
        switch answer {
        case .delivered:
            var cursor = senders[index].cursor
            if let ahead = senders[index].sendingAhead {
                cursor.ahead = ahead
            } else {
                cursor.delivered = max(cursor.delivered, request.fixes.last ?? cursor.delivered)
            }
            do {
                try moveCursor(index, to: cursor)
            } catch {
                logger.error("\(name): \(error.message); the fixes just delivered may be sent again")
            }
            senders[index].sendingAhead = nil
            senders[index].backoff.reset()
            guard !request.isEmpty else { break }
            if status.state != .delivering {
                logger.notice("\(name) delivers again (\(words))")
            }
            status.state = .delivering
            status.nextTry = nil
            status.lastAnswer = words
            status.delivered += request.fixes.count
            status.lastDeliveredAt = now
            if let time = request.newestTime, time > status.lastDeliveredFix ?? .distantPast {
                status.lastDeliveredFix = time
            }
            deliveredSincePrune += request.fixes.count
            if deliveredSincePrune >= Self.pruneEvery { prune() }
        case .retry(let reason, let after):
            let wait = after ?? Self.jittered(senders[index].backoff.next())
            if status.state != .retrying {
                logger.warning("\(name): \(reason); retrying with backoff, keeping the fixes in the outbox")
            }
            status.state = .retrying
            status.lastAnswer = words
            status.nextTry = now.addingTimeInterval(wait.inSeconds)
            senders[index].sendingAhead = nil
            status.backlog = Self.backlog(senders[index], outbox)
            return wait
        case .refused(let reason):
            if status.state != .refused || status.lastAnswer != words {
                logger.error(
                    "\(name) refuses the fixes: \(reason); they wait in the outbox, tried again every \(Int(timeouts.refusalRetry.inSeconds)) s until the server or the setting changes"
                )
            }
            status.state = .refused
            status.lastAnswer = words
            status.nextTry = now.addingTimeInterval(timeouts.refusalRetry.inSeconds)
            senders[index].sendingAhead = nil
            status.backlog = Self.backlog(senders[index], outbox)
            return timeouts.refusalRetry
        }
        status.backlog = Self.backlog(senders[index], outbox)
        return nil
    }

    /// Delivered fixes between two prunings of the outbox.
    private static let pruneEvery = 1000

    private func prune() {
        deliveredSincePrune = 0
        do {
            try outbox.prune()
        } catch {
            logger.error("uplink outbox: \(error.message)")
        }
    }

    /// A wait between half and all of `delay`.
    private static func jittered(_ delay: Duration) -> Duration {
        delay * Double.random(in: 0.5...1.0)
    }

    /// How many fixes `sender` has still to get.
    private static func backlog(_ sender: Sender, _ outbox: UplinkOutbox) -> Int {
        let after = Int(max(0, outbox.newestID - sender.cursor.delivered)) - (sender.cursor.ahead == nil ? 0 : 1)
        return min(max(0, after), outbox.count)
    }

    private func publishStatuses() {
        let current = senders.map(\.status)
        statuses.withLock { $0 = current }
    }

    /// An error on the way to the server, in a few words.
    static func describe(_ error: any Error) -> String {
        if let error = error as? IOError { return SystemCall.message(error.errnoCode) }
        if let error = error as? UplinkHTTPError {
            switch error {
            case .readTimeout: return "no answer in time"
            case .deadlineExceeded: return "no whole answer in time"
            case .closedBeforeAnswer: return "the server closed the connection before its answer was whole"
            case .unusableURL: return "not an http or https URL"
            case .busy: return "a request was already under way"
            }
        }
        if case ChannelError.connectTimeout = error { return "no connection in time" }
        if let error = error as? NIOConnectionError {
            if let failure = error.connectionErrors.first { return describe(failure.error) }
            return "cannot resolve \(error.host)"
        }
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return "TLS: the server's certificate is not for this host"
        }
        if let error = error as? NIOSSLError {
            if "\(error)".contains("CERTIFICATE_VERIFY_FAILED") {
                return "TLS: the server's certificate does not verify (not signed by a trusted authority, or expired)"
            }
            return "TLS: \(error)".prefix(160).escapedForTerminal
        }
        return String(describing: error).prefix(160).escapedForTerminal
    }
}
