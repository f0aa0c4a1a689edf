import CMosquitto
import Dispatch
import Foundation
import LocationFormats
import LocationState
import LocationStores
import LocationTimeline
import Logging

/// Sends the outbox to an MQTT broker through libmosquitto: QoS 1, oldest first, at
/// most ``maximumInFlight`` unacknowledged at a time; a message leaves the outbox only
/// on its PUBACK. After a reconnection the unacknowledged messages are sent again from
/// the outbox (libmosquitto's own copies are cleared), so a subscriber may see up to
/// ``maximumInFlight`` duplicates per outage (QoS 1).
///
/// The network loop is a thread of its own (`MQTTPublisher+NetworkLoop`), not
/// `mosquitto_loop_start`'s, which ends for good on a TLS or name lookup error and
/// cannot be woken out of its reconnect delay by `stop`.
///
/// While the broker keeps up, a message is sent first and stored only if its PUBACK is
/// late (`MQTTPublisher+Sending`): no SQLite transaction per fix, at the risk of losing,
/// on a SIGKILL, a message the broker did not get within `storeDelay` either.
///
/// Thread safety: every mutable property lives on `queue` (libmosquitto's callbacks
/// enter it with `queue.sync`), except the six behind a lock of their own (`state`,
/// `stopping`, `wasConnected`, `proven`, `steady`, `loopThread`) and `client` and `wakePipe`, which
/// `start` sets before the loop thread starts and `stop` clears after it ended.
public final class MQTTPublisher: @unchecked Sendable {
    /// Messages handed to libmosquitto and not yet acknowledged, at most.
    public static let maximumInFlight = 100

    /// Whether the broker is connected, how many messages wait in the outbox, how many
    /// were dropped since the start (beyond the outbox's bounds, not storable, or refused
    /// by libmosquitto), and whether the broker has stopped acknowledging (``stalled``).
    public struct Snapshot: Sendable, Equatable {
        public var connected: Bool
        public var queued: Int
        public var dropped: Int
        /// Connected, but no PUBACK for `acknowledgementTimeout` while messages wait.
        public var stalled = false
    }

    /// The serial queue all the publisher's state lives on.
    package let queue: DispatchQueue
    package let configuration: MQTTConfiguration
    package let logger: Logger
    package let outbox: MQTTOutbox
    /// Worked out once: the default topics name the user, a password database lookup.
    package let topics: MQTTTopics
    package let trackerID: String
    private let password: String?
    /// libmosquitto's client; created in `start`, destroyed in `stop` (after its thread ended).
    package var client: OpaquePointer?
    package var connected = false
    package var outageReported = false
    /// Connections the broker accepted, counted so that a check meant for one skips a later one.
    package var connections = 0
    /// Message id (libmosquitto's `mid`) -> outbox row.
    package var inFlight: [Int32: Int64] = [:]
    /// A message sent without being stored, waiting for its PUBACK.
    package struct Direct {
        var mid: Int32
        var entry: MQTTOutbox.Entry
        /// When it was sent (`DispatchTime` uptime nanoseconds).
        var sentAt: UInt64
    }
    /// The messages sent without being stored and not yet acknowledged, oldest first;
    /// all newer than every stored message.
    package var direct: [Direct] = []
    /// Messages handed to libmosquitto and not yet acknowledged, stored or not.
    package var unacknowledged: Int { inFlight.count + direct.count }
    package var storeCheckScheduled = false
    /// How long a message sent straight to the broker may wait for its PUBACK before it
    /// is stored (nanoseconds); more than ``acknowledgementPause``, so that a broker that
    /// keeps up never has one stored.
    package static let storeDelay: UInt64 = 1_000_000_000
    /// The newest outbox row handed to libmosquitto on this connection.
    package var lastHandedOver: Int64?
    package var acknowledged: [Int64] = []
    package var removalScheduled = false
    /// Whether writing the outbox fails (a full disk); logged once per episode.
    package var storageFailing = false
    /// Messages that could not be stored and were not sent directly.
    package var unstored = 0
    /// Messages libmosquitto refused to send (a topic or payload it cannot encode), dropped.
    package var refused = 0
    /// When the broker last made progress: a PUBACK, or a message handed over while none
    /// was unacknowledged (`DispatchTime` uptime nanoseconds).
    package var lastProgress: UInt64 = 0
    package var stallCheckScheduled = false
    /// Whether the broker has not acknowledged anything for ``acknowledgementTimeout``; logged once.
    package var stalled = false
    /// The messages in flight when the last connection ended, each with how many
    /// connections in a row ended with it unacknowledged (see `suspectLoss`). While there
    /// are any, messages go one at a time (``inFlightLimit``).
    package var suspects: [Int64: Int] = [:]
    /// Messages handed to libmosquitto and not yet acknowledged, at most, now: one while
    /// a lost connection's messages are resent, so that a broker that hangs up on one
    /// hangs up on it alone (nothing sent after it, no acknowledgement of the one before
    /// it lost with the connection), else ``maximumInFlight``.
    package var inFlightLimit: Int { suspects.isEmpty ? Self.maximumInFlight : 1 }
    /// Connections lost in a row with a message in flight, after which the oldest such
    /// message is taken for the cause and dropped.
    package static let lossesBeforeDropping = 3
    package var drained: [CheckedContinuation<Void, Never>] = []
    /// Whether the current `drain` gave up waiting (its grace is over).
    package var drainOver = false
    /// The last fix published and when (for the publishing policy); see `MQTTPublisher+Location`.
    package var lastPublished: (fix: Location, at: Date)?
    /// The last status name published.
    package var lastStatus: String?
    /// The device's motion, once the daemon tracks it (nil: not tracked); see `MQTTPublisher+Timeline`.
    package var motion: Motion?
    /// The newest fix seen, published or not: what goes out at a stop.
    package var latestFix: Location?
    /// When the day of the last "distance today" published ends.
    package var distanceDayEnd: Date?
    package let stopping = Locked(false)
    /// Set by the connect callback (on the loop thread) when the broker accepted us.
    package let wasConnected = Locked(false)
    /// Set on `queue` when the current connection proved itself: a PUBACK came, or it
    /// lived ``stableConnection``. One the broker ends before is a failure for the backoff.
    package let proven = Locked(false)
    /// How long a connection must live, without a PUBACK, to count as working: a broker
    /// that accepts and hangs up at once is an outage, not a stream of recoveries.
    package static let stableConnection: Duration = .seconds(10)
    /// How long a connected broker may leave every waiting message without a PUBACK before
    /// the publisher says so (log, `?STATUS;`): one keepalive period, 10 s at least; a
    /// broker that answers pings but acknowledges nothing is dropping what it gets.
    package var acknowledgementTimeout: UInt64 { UInt64(max(configuration.keepAliveSeconds, 10)) * 1_000_000_000 }
    /// Whether the publisher is keeping up: connected, every stored message handed
    /// over, few in flight, nobody draining. Set on `queue` by `pump`; the loop
    /// thread then pauses between reads (see ``acknowledgementPause``).
    package let steady = Locked(false)
    /// How long the loop thread waits after a read while ``steady`` (milliseconds), so
    /// that it reads PUBACKs in batches; publishing never waits for it, and a wake-up ends it.
    package static let acknowledgementPause: Int32 = 500
    /// The wake-up pipe's ends (read, write), non-blocking; see `wakeLoop`.
    package var wakePipe: (read: Int32, write: Int32) = (-1, -1)
    /// The loop thread, once it runs.
    package let loopThread = Locked<pthread_t?>(nil)
    package let loopEnded = DispatchSemaphore(value: 0)
    package let state = Locked(Snapshot(connected: false, queued: 0, dropped: 0))

    /// Loads libmosquitto, opens the outbox in `directory` and reads the password file.
    ///
    /// - Parameters:
    ///   - configuration: the broker, topics, login and publishing rules.
    ///   - directory: the data directory, where the outbox lives.
    ///   - logger: where connections, refusals and drops are told.
    ///   - queue: the serial queue the publisher's state lives on (by default one of its
    ///     own); the daemon passes the queue of its other listeners, so that a fix wakes
    ///     one thread for all of them rather than one more for MQTT.
    ///   - now: the time the publisher starts at (tests give their own).
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
        topics = configuration.topics
        trackerID = OwnTracksLocation.trackerID(forDevice: configuration.deviceName)
        if let path = configuration.passwordFile {
            let data = try ConfiguredFile.secret(at: path, naming: "mqtt-password-file", logger: logger)
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
    package func start() throws(LocationError) {
        _ = mosquitto_lib_init()
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let client = mosquitto_new(configuration.resolvedClientID, true, context) else {
            throw .internalError("libmosquitto could not create a client (out of memory or a bad client id)")
        }
        self.client = client
        try configure(client)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            throw .internalError("cannot make the MQTT loop's wake-up pipe: \(SystemCall.message())")
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

    /// Sets the client's last will, login, TLS and callbacks: at the start, and again
    /// after each reset of libmosquitto's state (`MQTTPublisher+NetworkLoop`).
    package func configure(_ client: OpaquePointer) throws(LocationError) {
        _ = MQTTStatusMessage.lastWill.withUnsafeBytes { bytes in
            mosquitto_will_set(client, topics.status, Int32(bytes.count), bytes.baseAddress, 1, true)
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
    }

    private static func from(_ context: UnsafeMutableRawPointer?) -> MQTTPublisher {
        Unmanaged<MQTTPublisher>.fromOpaque(context!).takeUnretainedValue()
    }
}
