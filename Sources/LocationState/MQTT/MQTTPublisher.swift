import CMosquitto
import Dispatch
import Foundation
import Logging

/// Sends the outbox to an MQTT broker through libmosquitto: QoS 1, oldest first, at
/// most ``maximumInFlight`` unacknowledged at a time; a message leaves the outbox only
/// on its PUBACK.
///
/// libmosquitto makes and parses every packet and handles keepalive. Its network
/// loop runs on a thread of this type's own rather than `mosquitto_loop_start`'s:
/// that thread ends for good on a TLS or name lookup error and sleeps through its
/// reconnect delay even when the daemon is stopping, whereas this one reconnects
/// after any error, with a backoff (1 s doubling to 30 s, back to 1 s once
/// connected) that `stop` interrupts. One log line per outage, not per retry, and
/// one when the broker is back.
///
/// The loop is libmosquitto's own steps (`mosquitto_loop_read`, `_write`, `_misc`)
/// around a `poll` of the broker's socket and a wake-up pipe of ours, rather than
/// `mosquitto_loop`: that one also wakes on a byte libmosquitto writes for every
/// publish, so at 10 Hz the thread woke twice a fix (for the byte, then for the
/// PUBACK) where once is enough. A publish writes its packet at once on the
/// publishing thread; when libmosquitto could only queue it (a full socket, TLS, a
/// publish from inside a callback), the publisher wakes the loop through the pipe.
/// libmosquitto's callbacks run on the loop thread and take ``queue`` with
/// `queue.sync` (no thread hop when the queue is idle); they hold only
/// libmosquitto's callback lock then, which nothing run on ``queue`` takes.
///
/// A message is stored before it is sent, except while the broker keeps up: when it is
/// connected and has acknowledged every stored message, a new message goes straight to
/// it and is stored only if its PUBACK has not come within ``storeDelay``, or when the
/// connection drops or the publisher stops first. At 10 Hz that spares each fix a
/// SQLite transaction (a fifth of the daemon's CPU with MQTT on). What a SIGKILL can
/// take is then a message already written to the broker's socket less than
/// ``storeDelay`` ago and not yet acknowledged: lost only if the broker does not get
/// it either (the connection or the broker fails in that same second).
///
/// After a reconnection the unacknowledged messages are sent again from the outbox,
/// oldest first; libmosquitto also resends the ones it had in flight, so a subscriber
/// may see up to ``maximumInFlight`` duplicates per outage (QoS 1's "at least once").
///
/// Thread safety: every mutable property is read and written on ``queue`` only
/// (libmosquitto's callbacks enter it with `queue.sync`), except ``snapshot`` and
/// `stopping` (each behind a lock of its own) and `client` and the wake-up pipe,
/// which `start` sets before the loop thread starts and `stop` clears after that
/// thread ended (libmosquitto's calls on the client are thread-safe).
public final class MQTTPublisher: @unchecked Sendable {
    /// Messages handed to libmosquitto and not yet acknowledged, at most.
    public static let maximumInFlight = 100

    /// Whether the broker is connected, how many messages wait in the outbox, and how
    /// many were dropped since the start (beyond the outbox's bounds, or not storable).
    public struct Snapshot: Sendable, Equatable {
        public var connected: Bool
        public var queued: Int
        public var dropped: Int
    }

    /// The serial queue all the publisher's state lives on.
    let queue: DispatchQueue
    let configuration: MQTTConfiguration
    let logger: Logger
    let outbox: MQTTOutbox
    /// The location topic, the status topic and the tracker id, worked out once (the
    /// default topic names the user, which is a password database lookup).
    let locationTopic: String
    let statusTopic: String
    let trackerID: String
    private let password: String?
    private let startedAt: Date
    // libmosquitto's client; created in `start`, destroyed in `stop` (after its thread ended).
    private var client: OpaquePointer?
    private var connected = false
    private var outageReported = false
    /// Message id (libmosquitto's `mid`) -> outbox row.
    private var inFlight: [Int32: Int64] = [:]
    /// A message sent without being stored, waiting for its PUBACK.
    private struct Direct {
        var mid: Int32
        var entry: MQTTOutbox.Entry
        /// When it was sent (`DispatchTime` uptime nanoseconds).
        var sentAt: UInt64
    }
    /// The messages sent without being stored and not yet acknowledged, oldest first;
    /// all newer than every stored message.
    private var direct: [Direct] = []
    /// Messages handed to libmosquitto and not yet acknowledged, stored or not.
    private var unacknowledged: Int { inFlight.count + direct.count }
    private var storeCheckScheduled = false
    /// How long a message sent straight to the broker may wait for its PUBACK before it
    /// is stored (nanoseconds); more than ``acknowledgementPause``, so that a broker that
    /// keeps up never has one stored.
    static let storeDelay: UInt64 = 1_000_000_000
    /// The newest outbox row handed to libmosquitto on this connection.
    private var lastHandedOver: Int64?
    private var acknowledged: [Int64] = []
    private var removalScheduled = false
    /// Whether writing the outbox fails (a full disk); logged once per episode.
    private var storageFailing = false
    /// Messages that could not be stored and were not sent directly.
    private var unstored = 0
    private var drained: [CheckedContinuation<Void, Never>] = []
    /// Whether the current `drain` gave up waiting (its grace is over).
    private var drainOver = false
    /// The last fix published and when (for the publishing policy); see `MQTTPublisher+OwnTracks`.
    var lastPublished: (fix: Location, at: Date)?
    /// The last status name published.
    var lastStatus: String?
    private let stopping = Locked(false)
    /// Set by the connect callback (on the loop thread) when the broker accepted us.
    private let wasConnected = Locked(false)
    /// Whether the publisher is keeping up: connected, every stored message handed
    /// over, few in flight, nobody draining. Set on ``queue`` by `pump`; the loop
    /// thread then pauses between reads (see ``acknowledgementPause``).
    private let steady = Locked(false)
    /// How long the loop thread waits after reading while the publisher is ``steady``
    /// (milliseconds): the PUBACKs of a 10 Hz stream are then read five at a time, one
    /// thread wake-up where there were five. Publishing does not wait for it (a publish
    /// writes its packet on the publishing thread), a publish that could only be
    /// queued, a drain and `stop` end the pause, and a message's PUBACK is known to the
    /// outbox that much later (its row is removed within a second of that anyway).
    static let acknowledgementPause: Int32 = 500
    /// The wake-up pipe's ends (read, write), non-blocking; see `wakeLoop`.
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)
    /// The loop thread, once it runs.
    private let loopThread = Locked<pthread_t?>(nil)
    private let loopEnded = DispatchSemaphore(value: 0)
    private let state = Locked(Snapshot(connected: false, queued: 0, dropped: 0))

    /// Loads libmosquitto, opens the outbox in `directory` and reads the password file.
    ///
    /// - Parameter queue: the serial queue the publisher's state lives on (by default one
    ///   of its own); the daemon passes the queue of its other listeners, so that a fix
    ///   wakes one thread for all of them rather than one more for MQTT.
    /// - Throws: ``LocationError`` when libmosquitto cannot be loaded, the password file
    ///   cannot be read or the outbox cannot be created.
    public init(
        configuration: MQTTConfiguration, directory: URL, logger: Logger, queue: DispatchQueue? = nil,
        now: Date = Date()
    ) throws(LocationError) {
        try MosquittoLibrary.load()
        self.queue = queue ?? DispatchQueue(label: "locationd.mqtt")
        self.configuration = configuration
        self.logger = logger
        locationTopic = configuration.resolvedTopic
        statusTopic = configuration.statusTopic
        trackerID = OwnTracksLocation.trackerID(forDevice: configuration.deviceName)
        startedAt = now
        if let path = configuration.passwordFile {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw .fileUnreadable(path: path, reason: "the MQTT password file cannot be read")
            }
            var text = String(decoding: data, as: UTF8.self)
            while text.last == "\n" || text.last == "\r" { text.removeLast() }
            password = text
        } else {
            password = nil
        }
        outbox = try MQTTOutbox(directory: directory, bounds: configuration.outboxBounds, logger: logger, now: now)
        state.withLock { $0.queued = outbox.count }
    }

    /// Whether the broker is connected and how many messages wait; any thread.
    public var snapshot: Snapshot { state.withLock { $0 } }

    /// Creates the client and starts connecting, in the background.
    func start() throws(LocationError) {
        _ = mosquitto_lib_init()
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let client = mosquitto_new(configuration.resolvedClientID, true, context) else {
            throw .internalError("libmosquitto could not create a client (out of memory or a bad client id)")
        }
        self.client = client
        let will = OwnTracksStatus.lastWill(connectedAt: startedAt)
        _ = will.withUnsafeBytes { bytes in
            mosquitto_will_set(client, statusTopic, Int32(bytes.count), bytes.baseAddress, 1, true)
        }
        if let user = configuration.user {
            _ = mosquitto_username_pw_set(client, user, password)
        }
        if configuration.tls {
            if let caFile = configuration.caFile {
                let rc = mosquitto_tls_set(client, caFile, nil, nil, nil, nil)
                guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                    throw .fileUnreadable(path: caFile, reason: "not a usable CA file (\(Self.describe(rc)))")
                }
            } else {
                _ = mosquitto_int_option(client, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
            }
        }
        // On the loop thread (the disconnect callback also on `stop`'s, for our own
        // DISCONNECT), never on `queue`; see the type's notes on locking.
        mosquitto_connect_callback_set(client) { _, context, rc in
            let publisher = MQTTPublisher.from(context)
            publisher.wasConnected.withLock { $0 = rc == 0 }
            publisher.queue.sync { publisher.didConnect(rc) }
        }
        mosquitto_disconnect_callback_set(client) { _, context, rc in
            let publisher = MQTTPublisher.from(context)
            publisher.queue.sync { publisher.didDisconnect(rc) }
        }
        mosquitto_publish_callback_set(client) { _, context, mid in
            let publisher = MQTTPublisher.from(context)
            publisher.queue.sync { publisher.didAcknowledge(mid) }
        }
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw .internalError("cannot make the MQTT loop's wake-up pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakePipe = (ends[0], ends[1])
        let thread = Thread { [self] in runLoop() }
        thread.name = "locationd.mqtt.loop"
        thread.start()
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MQTTPublisher {
        Unmanaged<MQTTPublisher>.fromOpaque(context!).takeUnretainedValue()
    }

    /// The loop thread: connects, runs libmosquitto's loop, and after an error
    /// waits (1 s doubling to 30 s) and connects again, until `stop`.
    private func runLoop() {
        guard let client else { return }
        loopThread.withLock { $0 = pthread_self() }
        var delay = 1.0
        var first = true
        while !stopping.withLock({ $0 }) {
            wasConnected.withLock { $0 = false }
            var rc =
                first
                ? mosquitto_connect_async(
                    client, configuration.host ?? "localhost", Int32(configuration.port),
                    Int32(configuration.keepAliveSeconds))
                : mosquitto_reconnect_async(client)
            first = false
            var errorNumber = errno
            while rc == MOSQ_ERR_SUCCESS.rawValue, !stopping.withLock({ $0 }) {
                rc = loopOnce(client)
                errorNumber = errno
                if wasConnected.withLock({ $0 }) { delay = 1 }
            }
            if stopping.withLock({ $0 }) { break }
            let reason = rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errorNumber)) : Self.describe(rc)
            queue.async { self.connectionFailed(reason) }
            waitForWake(milliseconds: Int32(delay * 1000))
            delay = min(delay * 2, 30)
        }
        // A DISCONNECT that `stop` could only queue (the loop was in a callback) goes now.
        if mosquitto_want_write(client) { _ = mosquitto_loop_write(client, 1) }
        loopEnded.signal()
    }

    /// One turn of the network loop, as `mosquitto_loop` takes it but waiting on the
    /// wake-up pipe instead of libmosquitto's per-publish byte: waits up to a second
    /// for the broker (or a wake-up), reads what came (PUBACKs run their callback
    /// here), writes what is queued, and runs keepalive. Returns libmosquitto's code.
    private func loopOnce(_ client: OpaquePointer) -> Int32 {
        let socket = mosquitto_socket(client)
        guard socket >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        let wantWrite = mosquitto_want_write(client)
        var descriptors = [
            pollfd(fd: socket, events: Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0), revents: 0),
            pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0),
        ]
        if poll(&descriptors, 2, 1000) < 0 {
            return errno == EINTR ? MOSQ_ERR_SUCCESS.rawValue : MOSQ_ERR_ERRNO.rawValue
        }
        if descriptors[1].revents != 0 { drainWakePipe() }
        if descriptors[0].revents & Int16(POLLIN | POLLERR | POLLHUP | POLLNVAL) != 0 {
            let rc = mosquitto_loop_read(client, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue || mosquitto_socket(client) < 0 { return rc }
            if steady.withLock({ $0 }) && !mosquitto_want_write(client) {
                waitForWake(milliseconds: Self.acknowledgementPause)
            }
        }
        // Queued packets (a publish made inside a callback just now, one that found the
        // socket full, our own DISCONNECT): written as far as the socket takes them.
        if mosquitto_want_write(client) {
            let rc = mosquitto_loop_write(client, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue || mosquitto_socket(client) < 0 { return rc }
        }
        return mosquitto_loop_misc(client)
    }

    /// Whether the caller runs on the loop thread (in one of libmosquitto's callbacks).
    private var onLoopThread: Bool { loopThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }

    /// A publish is written at once as a rule; what libmosquitto could only queue, the
    /// loop writes: woken for it, unless this is the loop thread itself (in a callback),
    /// which looks after every read anyway.
    private func wakeLoopIfQueued(_ client: OpaquePointer) {
        if !onLoopThread, mosquitto_want_write(client) { wakeLoop() }
    }

    /// Wakes the loop thread out of its `poll` (or its backoff); any thread.
    private func wakeLoop() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)  // a full pipe already wakes it
    }

    private func drainWakePipe() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakePipe.read, &bytes, bytes.count) > 0 {}
    }

    /// The backoff: sleeps `milliseconds` unless woken (by `stop`).
    private func waitForWake(milliseconds: Int32) {
        var descriptor = pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, milliseconds) > 0 { drainWakePipe() }
    }

    private static func describe(_ rc: Int32) -> String { String(cString: mosquitto_strerror(rc)) }

    // MARK: on `queue`

    private func didConnect(_ rc: Int32) {
        guard rc == 0 else {
            connectionFailed("the broker refused the connection: \(String(cString: mosquitto_connack_string(rc)))")
            return
        }
        connected = true
        let where_ = "\(configuration.host ?? "?"):\(configuration.port)"
        if outageReported {
            logger.notice("MQTT broker \(where_) connected again; sending \(outbox.count) queued messages")
        } else {
            logger.info("MQTT broker \(where_) connected; publishing to \(locationTopic)")
        }
        outageReported = false
        updateSnapshot()
        pump()
    }

    private func didDisconnect(_ rc: Int32) {
        guard rc != 0 else { return }  // our own mosquitto_disconnect
        connectionFailed(
            connected
                ? "the connection was lost"
                : "the broker closed the connection before accepting it (is it an MQTT broker, does it take this client?)"
        )
    }

    private func connectionFailed(_ reason: String) {
        connected = false
        steady.withLock { $0 = false }
        storeDirectOrCountLost()
        inFlight.removeAll()
        lastHandedOver = nil
        updateSnapshot()
        guard !outageReported else { return }
        outageReported = true
        logger.warning(
            "MQTT broker \(configuration.host ?? "?"):\(configuration.port): \(reason); retrying with backoff, keeping messages in the outbox"
        )
    }

    private func didAcknowledge(_ mid: Int32) {
        if let index = direct.firstIndex(where: { $0.mid == mid }) {
            direct.remove(at: index)
            updateSnapshot()
            if direct.isEmpty && !drained.isEmpty { pump() }
            return
        }
        guard let row = inFlight.removeValue(forKey: mid) else { return }
        acknowledged.append(row)
        // The acknowledged rows go in one transaction a second (sooner for a large batch
        // or a waiting drain): at 10 Hz that is one write for ten PUBACKs, not ten. Rows
        // acknowledged but not yet removed when the daemon is killed are sent again at
        // the next start, which QoS 1 allows (at least once).
        if acknowledged.count >= Self.removalBatch || !drained.isEmpty {
            removeAcknowledged()
        } else {
            if !removalScheduled {
                removalScheduled = true
                queue.asyncAfter(deadline: .now() + Self.removalDelay) { self.removeAcknowledged() }
            }
            pump()
        }
    }

    /// Acknowledged rows removed together, at most; and the longest they wait for removal.
    private static let removalBatch = 1000
    private static let removalDelay = DispatchTimeInterval.seconds(1)

    /// Removes the acknowledged rows; when that fails (a full disk) they stay listed and
    /// are removed on a later try (sent again first after a reconnection: QoS 1 allows it).
    private func removeAcknowledged() {
        removalScheduled = false
        guard !acknowledged.isEmpty else { return pump() }
        do {
            try outbox.remove(acknowledged)
            acknowledged.removeAll()
        } catch {
            storageFailed(error)
        }
        updateSnapshot()
        pump()
    }

    /// Appends a message to the outbox and sends what can go.
    ///
    /// When the outbox cannot be written (a full disk), a message that cannot be stored
    /// is published at once if the broker is connected and nothing waits before it
    /// (order is kept; it is lost if the connection drops before its PUBACK); otherwise
    /// it is dropped and counted. Messages already stored are kept and sent as usual.
    func enqueue(topic: String, payload: [UInt8], retain: Bool, at now: Date = Date()) {
        let entry = MQTTOutbox.Entry(topic: topic, payload: payload, retain: retain, createdAt: now)
        if sendDirectly(entry) { return }
        do {
            try storeDirect(at: now)  // they go before this one
            try outbox.append(contentsOf: [entry], at: now)
        } catch {
            storageFailed(error)
            if connected, outbox.count == 0, let client {
                _ = payload.withUnsafeBytes { bytes in
                    mosquitto_publish(client, nil, topic, Int32(bytes.count), bytes.baseAddress, 1, retain)
                }
                wakeLoopIfQueued(client)
            } else {
                unstored += 1
            }
            updateSnapshot()
            return
        }
        storageRecovered()
        updateSnapshot()
        pump()
    }

    /// Sends `entry` without storing it, when the broker is connected, has acknowledged
    /// every stored message and has room in flight; returns false, having done nothing,
    /// otherwise (see the type's notes).
    private func sendDirectly(_ entry: MQTTOutbox.Entry) -> Bool {
        guard connected, let client, outbox.count == acknowledged.count,
            unacknowledged < Self.maximumInFlight
        else { return false }
        var mid: Int32 = 0
        let rc = entry.payload.withUnsafeBytes { bytes in
            mosquitto_publish(client, &mid, entry.topic, Int32(bytes.count), bytes.baseAddress, 1, entry.retain)
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return false }
        direct.append(Direct(mid: mid, entry: entry, sentAt: DispatchTime.now().uptimeNanoseconds))
        wakeLoopIfQueued(client)
        updateSteady(handedAll: true)
        scheduleStoreCheck()
        updateSnapshot()
        return true
    }

    /// Stores the messages sent directly and not yet acknowledged, in one transaction,
    /// after every stored message; while connected they stay in flight as stored ones.
    /// When the outbox cannot be written, throws and keeps them in memory.
    private func storeDirect(at now: Date = Date()) throws(LocationError) {
        guard !direct.isEmpty else { return }
        let ids = try outbox.append(contentsOf: direct.map(\.entry), at: now)
        if connected {
            for (message, id) in zip(direct, ids) { inFlight[message.mid] = id }
            // Every stored message before them was acknowledged, so all are handed over.
            lastHandedOver = ids.last
        }
        direct.removeAll()
    }

    /// When the connection is gone: what was sent directly and not acknowledged goes to
    /// the outbox, to be sent again; what cannot be stored (a full disk) is counted lost.
    private func storeDirectOrCountLost() {
        do {
            try storeDirect()
        } catch {
            storageFailed(error)
            unstored += direct.count
            direct.removeAll()
        }
    }

    /// Stores the direct messages once the oldest has waited ``storeDelay`` for its PUBACK.
    private func scheduleStoreCheck(notBefore: UInt64 = 0) {
        guard !storeCheckScheduled, let oldest = direct.first else { return }
        storeCheckScheduled = true
        let deadline = DispatchTime(uptimeNanoseconds: max(oldest.sentAt + Self.storeDelay, notBefore))
        queue.asyncAfter(deadline: deadline) { self.storeOverdue() }
    }

    private func storeOverdue() {
        storeCheckScheduled = false
        guard let oldest = direct.first else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        if now >= oldest.sentAt + Self.storeDelay {
            // All of them, not only the overdue ones: stored messages must stay older
            // than every direct one.
            do {
                try storeDirect()
                storageRecovered()
                updateSnapshot()
            } catch {
                storageFailed(error)
                return scheduleStoreCheck(notBefore: now + Self.storeDelay)
            }
        }
        scheduleStoreCheck()
    }

    /// After a write of the outbox succeeded: ends a failing episode, with one line.
    private func storageRecovered() {
        guard storageFailing else { return }
        storageFailing = false
        logger.notice("MQTT outbox writable again; \(unstored) messages could not be kept meanwhile")
        if !acknowledged.isEmpty { removeAcknowledged() }
    }

    /// One line while writing the outbox fails, not one a fix.
    private func storageFailed(_ error: LocationError) {
        guard !storageFailing else { return }
        storageFailing = true
        logger.error(
            "MQTT outbox: \(error.message); until it can be written, new messages go straight to the broker when nothing waits, else are dropped (counted)"
        )
    }

    /// Hands the oldest messages not yet handed over to libmosquitto while connected.
    private func pump() {
        guard connected, let client else { return }
        var handedAll = false
        defer { updateSteady(handedAll: handedAll) }
        while unacknowledged < Self.maximumInFlight {
            let batch: [MQTTOutbox.Message]
            do {
                batch = try outbox.messages(after: lastHandedOver, limit: Self.maximumInFlight - unacknowledged)
            } catch {
                logger.error("MQTT outbox: \(error.message)")
                return
            }
            guard !batch.isEmpty else {
                handedAll = true
                break
            }
            for message in batch {
                var mid: Int32 = 0
                let rc = message.payload.withUnsafeBytes { bytes in
                    mosquitto_publish(
                        client, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, 1, message.retain)
                }
                // Not connected after all: the disconnect callback follows; the messages stay queued.
                guard rc == MOSQ_ERR_SUCCESS.rawValue else { return }
                inFlight[mid] = message.id
                lastHandedOver = message.id
            }
        }
        wakeLoopIfQueued(client)
        if outbox.count == acknowledged.count && inFlight.isEmpty && direct.isEmpty {
            if !acknowledged.isEmpty && !drained.isEmpty && !storageFailing { return removeAcknowledged() }
            guard outbox.count == 0 else { return }
            for waiter in drained { waiter.resume() }
            drained.removeAll()
        }
    }

    /// Sets ``steady``: every stored message handed over (`handedAll`), few in flight,
    /// nobody draining.
    private func updateSteady(handedAll: Bool) {
        let calm = handedAll && unacknowledged < Self.maximumInFlight / 4 && drained.isEmpty
        steady.withLock { $0 = calm }
    }

    private func updateSnapshot() {
        let snapshot = Snapshot(
            connected: connected, queued: outbox.count - acknowledged.count + direct.count,
            dropped: outbox.dropped + unstored)
        state.withLock { $0 = snapshot }
    }

    // MARK: stopping

    /// Waits until the outbox is empty (every message acknowledged) or `grace` is over.
    func drain(grace: Duration) async {
        await withCheckedContinuation { done in
            queue.async {
                self.drainOver = false
                done.resume()
            }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    self.queue.async {
                        if self.drainOver || (self.outbox.count == 0 && self.inFlight.isEmpty && self.direct.isEmpty) {
                            continuation.resume()
                        } else {
                            self.drained.append(continuation)
                            self.pump()
                            self.wakeLoop()  // out of a pause between PUBACKs
                        }
                    }
                }
            }
            group.addTask { try? await Task.sleep(for: grace) }
            await group.next()
            group.cancelAll()
            // Releases a waiter still pending, so that the task group can end.
            await withCheckedContinuation { done in
                queue.async {
                    self.drainOver = true
                    for waiter in self.drained { waiter.resume() }
                    self.drained.removeAll()
                    done.resume()
                }
            }
        }
    }

    /// Disconnects cleanly (the broker then does not send the last will) and ends the
    /// loop thread; what was not acknowledged stays in the outbox for the next start.
    func stop() {
        stopping.withLock { $0 = true }
        guard let client else { return }
        _ = mosquitto_disconnect(client)
        wakeLoop()
        loopEnded.wait()
        queue.sync {
            connected = false
            storeDirectOrCountLost()  // kept for the next start
            updateSnapshot()
        }
        mosquitto_destroy(client)
        self.client = nil
        close(wakePipe.read)
        close(wakePipe.write)
        wakePipe = (-1, -1)
    }
}
