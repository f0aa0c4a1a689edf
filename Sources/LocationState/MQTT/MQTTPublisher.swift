import CMosquitto
import Dispatch
import Foundation
import Logging

/// Sends the outbox to an MQTT broker through libmosquitto: QoS 1, oldest first, at
/// most ``maximumInFlight`` unacknowledged at a time; a message leaves the outbox only
/// on its PUBACK.
///
/// libmosquitto makes and parses every packet and handles keepalive. Its network
/// loop (`mosquitto_loop`) runs on a thread of this type's own rather than
/// `mosquitto_loop_start`'s: that thread ends for good on a TLS or name lookup error
/// and sleeps through its reconnect delay even when the daemon is stopping, whereas
/// this one reconnects after any error, with a backoff (1 s doubling to 30 s, back
/// to 1 s once connected) that `stop` interrupts. One log line per outage, not per
/// retry, and one when the broker is back.
///
/// After a reconnection the unacknowledged messages are sent again from the outbox,
/// oldest first; libmosquitto also resends the ones it had in flight, so a subscriber
/// may see up to ``maximumInFlight`` duplicates per outage (QoS 1's "at least once").
///
/// Thread safety: every mutable property is read and written on ``queue`` only
/// (libmosquitto's callbacks hop onto it), except ``snapshot`` and `stopping` (each
/// behind a lock of its own) and `client`, which `start` sets before the loop thread
/// starts and `stop` clears after that thread ended (libmosquitto's calls on it are
/// thread-safe).
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
    let queue = DispatchQueue(label: "locationd.mqtt")
    let configuration: MQTTConfiguration
    let logger: Logger
    let outbox: MQTTOutbox
    private let password: String?
    private let startedAt: Date
    // libmosquitto's client; created in `start`, destroyed in `stop` (after its thread ended).
    private var client: OpaquePointer?
    private var connected = false
    private var outageReported = false
    /// Message id (libmosquitto's `mid`) -> outbox row.
    private var inFlight: [Int32: Int64] = [:]
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
    private let wake = DispatchSemaphore(value: 0)
    private let loopEnded = DispatchSemaphore(value: 0)
    private let state = Locked(Snapshot(connected: false, queued: 0, dropped: 0))

    /// Loads libmosquitto, opens the outbox in `directory` and reads the password file.
    ///
    /// - Throws: ``LocationError`` when libmosquitto cannot be loaded, the password file
    ///   cannot be read or the outbox cannot be created.
    public init(configuration: MQTTConfiguration, directory: URL, logger: Logger, now: Date = Date())
        throws(LocationError)
    {
        try MosquittoLibrary.load()
        self.configuration = configuration
        self.logger = logger
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
            mosquitto_will_set(client, configuration.statusTopic, Int32(bytes.count), bytes.baseAddress, 1, true)
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
        mosquitto_connect_callback_set(client) { _, context, rc in
            let publisher = MQTTPublisher.from(context)
            publisher.wasConnected.withLock { $0 = rc == 0 }
            publisher.queue.async { publisher.didConnect(rc) }
        }
        mosquitto_disconnect_callback_set(client) { _, context, rc in
            let publisher = MQTTPublisher.from(context)
            publisher.queue.async { publisher.didDisconnect(rc) }
        }
        mosquitto_publish_callback_set(client) { _, context, mid in
            let publisher = MQTTPublisher.from(context)
            publisher.queue.async { publisher.didAcknowledge(mid) }
        }
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
                rc = mosquitto_loop(client, 1000, 1)
                errorNumber = errno
                if wasConnected.withLock({ $0 }) { delay = 1 }
            }
            if stopping.withLock({ $0 }) { break }
            let reason = rc == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errorNumber)) : Self.describe(rc)
            queue.async { self.connectionFailed(reason) }
            _ = wake.wait(timeout: .now() + delay)
            delay = min(delay * 2, 30)
        }
        loopEnded.signal()
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
            logger.info("MQTT broker \(where_) connected; publishing to \(configuration.resolvedTopic)")
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
        do {
            try outbox.append(topic: topic, payload: payload, retain: retain, at: now)
        } catch {
            storageFailed(error)
            if connected, outbox.count == 0, let client {
                _ = payload.withUnsafeBytes { bytes in
                    mosquitto_publish(client, nil, topic, Int32(bytes.count), bytes.baseAddress, 1, retain)
                }
            } else {
                unstored += 1
            }
            updateSnapshot()
            return
        }
        if storageFailing {
            storageFailing = false
            logger.notice("MQTT outbox writable again; \(unstored) messages could not be kept meanwhile")
            if !acknowledged.isEmpty { removeAcknowledged() }
        }
        updateSnapshot()
        pump()
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
        while inFlight.count < Self.maximumInFlight {
            let batch: [MQTTOutbox.Message]
            do {
                batch = try outbox.messages(after: lastHandedOver, limit: Self.maximumInFlight - inFlight.count)
            } catch {
                logger.error("MQTT outbox: \(error.message)")
                return
            }
            guard !batch.isEmpty else { break }
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
        if outbox.count == acknowledged.count && inFlight.isEmpty {
            if !acknowledged.isEmpty && !drained.isEmpty && !storageFailing { return removeAcknowledged() }
            guard outbox.count == 0 else { return }
            for waiter in drained { waiter.resume() }
            drained.removeAll()
        }
    }

    private func updateSnapshot() {
        let snapshot = Snapshot(
            connected: connected, queued: outbox.count - acknowledged.count, dropped: outbox.dropped + unstored)
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
                        if self.drainOver || (self.outbox.count == 0 && self.inFlight.isEmpty) {
                            continuation.resume()
                        } else {
                            self.drained.append(continuation)
                            self.pump()
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
        wake.signal()
        loopEnded.wait()
        queue.sync {
            connected = false
            updateSnapshot()
        }
        mosquitto_destroy(client)
        self.client = nil
    }
}
