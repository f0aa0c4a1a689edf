import Foundation
import GRDB
import LocationState
import LocationStores
import Logging

/// The MQTT messages not yet acknowledged by the broker, in order, on disk: one SQLite
/// database (through GRDB, WAL) in the data directory, mode 0600.
///
/// A message is removed only when the broker's PUBACK for it arrives, so a broker that
/// is away, a daemon killed with SIGKILL or a power cut loses nothing already appended
/// (in WAL mode with `synchronous = NORMAL` a power cut may lose the last
/// transactions, a process kill none). The publisher appends a message before sending
/// it, except while the broker keeps up (see ``MQTTPublisher``).
///
/// Bounded: beyond ``Bounds/maximumMessages`` or older than ``Bounds/maximumAge`` the
/// oldest messages are dropped, counted in ``dropped``, and logged once per episode
/// (the first drop, then once more when the backlog is sent, with the count).
///
/// A file that is not a usable outbox is moved aside to
/// `mqtt-outbox.sqlite.corrupt-TIMESTAMP`, as ``AtomicFileStore`` does with its files,
/// with one warning, and a new outbox is started: MQTT must not stop the daemon.
///
/// - Important: not thread-safe; its owner confines it to one serial queue.
public final class MQTTOutbox {
    /// The database's file name inside a data directory.
    public static let fileName = DataDirectory.Name.mqttOutbox

    /// How much the outbox keeps at most.
    public struct Bounds: Sendable, Equatable {
        /// Messages kept at most (default 100,000: about three hours at 10 Hz, 30 MB).
        public var maximumMessages: Int
        /// Seconds a message is kept at most (default 7 days).
        public var maximumAge: Double

        public init(maximumMessages: Int = 100_000, maximumAge: Double = 7 * 86_400) {
            self.maximumMessages = maximumMessages
            self.maximumAge = maximumAge
        }
    }

    /// One message waiting for the broker's acknowledgement.
    public struct Message: Sendable, Equatable {
        /// Its place in the order; larger is newer.
        public var id: Int64
        public var topic: String
        public var payload: [UInt8]
        public var retain: Bool
        /// When it was appended.
        public var createdAt: Date
    }

    /// The database file.
    public let url: URL
    public let bounds: Bounds
    private let queue: DatabaseQueue
    private let logger: Logger
    /// Messages in the outbox.
    public private(set) var count: Int
    /// The id the next message gets: one past the largest at open, then counted here,
    /// so ids only grow while the outbox is open (an id may be used again after a
    /// restart that found the outbox empty, when nothing refers to the old one).
    private var nextID: Int64
    /// Messages dropped by the bounds since the outbox was opened.
    public private(set) var dropped = 0
    private var droppingLogged = false
    /// The newest messages appended, consecutive, oldest first (at most ``tailLimit``):
    /// ``messages(after:limit:)`` hands them over from memory when they are all that
    /// follows, so a message sent as it comes costs one write and no read.
    private var tail: [Message] = []
    private static let tailLimit = 256
    /// When the messages older than the maximum age were last deleted; see `ageCheckInterval`.
    private var agedOutAt = Date.distantPast
    /// The age bound is applied at most this often (seconds): a message may outlive it
    /// by that much, and an append costs no second statement.
    package static let ageCheckInterval = 60.0

    /// Opens the outbox in `directory`, creating it (and the directory) when missing.
    ///
    /// - Throws: ``LocationError`` when the file can neither be opened nor moved aside
    ///   and created again.
    public init(
        directory: URL, bounds: Bounds = Bounds(), logger: Logger = Logger(label: "locationd.mqtt"), now: Date = Date()
    ) throws(LocationError) {
        url = directory.appendingPathComponent(Self.fileName)
        self.bounds = bounds
        self.logger = logger
        try DataDirectory.create(directory)
        queue = try SQLiteFiles.openReplacingCorrupt(
            url.path, naming: "MQTT outbox", at: now, logger: logger, Self.openQueue)
        do {
            (count, nextID) = try queue.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM message") ?? 0,
                    (try Int64.fetchOne(db, sql: "SELECT max(id) FROM message") ?? 0) + 1
                )
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
        try trim(now: now)
    }

    private static func openQueue(path: String) throws(LocationError) -> DatabaseQueue {
        let queue = try SQLiteFiles.exclusiveQueue(path, label: "locationd.mqtt-outbox")
        do {
            // An append writes one page: no AUTOINCREMENT (the outbox numbers its messages
            // itself) and no index on createdAt (the age bound scans the table once a minute).
            // Files made before keep AUTOINCREMENT, which explicit ids satisfy; their index goes.
            try queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS message (
                            id INTEGER PRIMARY KEY,
                            topic TEXT NOT NULL,
                            payload BLOB NOT NULL,
                            retain INTEGER NOT NULL,
                            createdAt REAL NOT NULL)
                        """)
                try db.execute(sql: "DROP INDEX IF EXISTS message_createdAt")
            }
            let columns = try queue.read { db in try db.columns(in: "message").map(\.name) }
            guard Set(["id", "topic", "payload", "retain", "createdAt"]).isSubset(of: columns) else {
                throw LocationError.databaseCorrupt(path: path, reason: "it has no locationd message table")
            }
            return queue
        } catch {
            throw TileDatabase.locationError(error, path: path)
        }
    }

    /// Appends a message at the end and applies the bounds, in one transaction: when it
    /// throws (a full disk), nothing changed. Returns the message's id.
    ///
    /// Most appends apply no bound (see `ageCheckInterval`): those are one prepared
    /// INSERT, its own transaction, one page written to the WAL.
    @discardableResult
    public func append(topic: String, payload: [UInt8], retain: Bool, at now: Date = Date()) throws(LocationError)
        -> Int64
    {
        try append(contentsOf: [Entry(topic: topic, payload: payload, retain: retain, createdAt: now)], at: now)[0]
    }

    /// A message to append: a ``Message`` without its id.
    public struct Entry: Sendable, Equatable {
        public var topic: String
        public var payload: [UInt8]
        public var retain: Bool
        /// When the message was made; the age bound counts from it.
        public var createdAt: Date

        public init(topic: String, payload: [UInt8], retain: Bool, createdAt: Date) {
            (self.topic, self.payload, self.retain, self.createdAt) = (topic, payload, retain, createdAt)
        }
    }

    /// Appends `entries` at the end, in their order, and applies the bounds, all in one
    /// transaction: when it throws (a full disk), nothing changed. Returns their ids.
    @discardableResult
    public func append(contentsOf entries: [Entry], at now: Date = Date()) throws(LocationError) -> [Int64] {
        guard !entries.isEmpty else { return [] }
        let (excess, bounds, firstID) = (count + entries.count - bounds.maximumMessages, bounds, nextID)
        let checkAge = now.timeIntervalSince(agedOutAt) >= Self.ageCheckInterval || now < agedOutAt
        let ids = (0..<Int64(entries.count)).map { firstID + $0 }
        let arguments = zip(ids, entries).map { id, entry -> StatementArguments in
            [id, entry.topic, Data(entry.payload), entry.retain, entry.createdAt.timeIntervalSince1970]
        }
        let removed: Int
        do {
            if excess <= 0 && !checkAge && arguments.count == 1 {
                try queue.writeWithoutTransaction { db in try Self.insert(db, arguments[0]) }
                removed = 0
            } else {
                removed = try queue.write { db in
                    for row in arguments { try Self.insert(db, row) }
                    return try Self.trim(db, excess: excess, now: checkAge ? now : nil, bounds: bounds)
                }
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
        nextID += Int64(entries.count)
        if checkAge { agedOutAt = now }
        count += entries.count
        noteDropped(removed)
        if let last = tail.last, last.id + 1 != firstID { tail.removeAll() }
        for (id, entry) in zip(ids, entries) {
            if tail.count == Self.tailLimit { tail.removeFirst(Self.tailLimit / 2) }
            tail.append(
                Message(
                    id: id, topic: entry.topic, payload: entry.payload, retain: entry.retain,
                    createdAt: entry.createdAt))
        }
        return ids
    }

    private static func insert(_ db: Database, _ arguments: StatementArguments) throws {
        try db.cachedStatement(
            sql: "INSERT INTO message (id, topic, payload, retain, createdAt) VALUES (?, ?, ?, ?, ?)"
        )
        .execute(arguments: arguments)
    }

    /// Up to `limit` messages after `id` (all from the oldest when nil), oldest first.
    ///
    /// - Parameters:
    ///   - id: the last message already handled, or nil for none.
    ///   - limit: how many messages at most.
    ///   - fromFile: read the file even when the messages are in memory (tests).
    public func messages(after id: Int64?, limit: Int, fromFile: Bool = false) throws(LocationError) -> [Message] {
        // Every message after `id` is in the tail when the tail starts at or before id + 1:
        // the tail holds every message appended since its first, and ids only grow.
        if !fromFile, let id, let first = tail.first, first.id <= id + 1 {
            return Array(tail.drop { $0.id <= id }.prefix(limit))
        }
        do {
            return try queue.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT * FROM message WHERE id > ? ORDER BY id LIMIT ?",
                    arguments: [id ?? 0, limit]
                ).map { row in
                    Message(
                        id: row["id"], topic: row["topic"], payload: [UInt8](row["payload"] as Data),
                        retain: row["retain"], createdAt: Date(timeIntervalSince1970: row["createdAt"]))
                }
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// Removes acknowledged messages (ids no longer there are ignored).
    public func remove(_ ids: some Collection<Int64>) throws(LocationError) {
        guard !ids.isEmpty else { return }
        do {
            let removed = try queue.write { db in
                let statement = try db.cachedStatement(sql: "DELETE FROM message WHERE id = ?")
                var removed = 0
                for id in ids {
                    try statement.execute(arguments: [id])
                    removed += db.changesCount
                }
                return removed
            }
            count -= removed
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
        if count == 0, droppingLogged {
            logger.notice("MQTT outbox sent; \(dropped) older messages had been dropped to keep within its bounds")
            droppingLogged = false
        }
    }

    /// Drops the oldest messages beyond the bounds.
    private func trim(now: Date) throws(LocationError) {
        let (excess, bounds) = (count - bounds.maximumMessages, bounds)
        let removed: Int
        do {
            removed = try queue.write { db in
                try Self.trim(db, excess: excess, now: now, bounds: bounds)
            }
            agedOutAt = now
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
        noteDropped(removed)
    }

    /// Deletes the `excess` oldest messages and, unless `now` is nil, those older than the
    /// maximum age; returns how many.
    private static func trim(_ db: Database, excess: Int, now: Date?, bounds: Bounds) throws -> Int {
        var removed = 0
        if excess > 0 {
            try db.execute(
                sql: "DELETE FROM message WHERE id IN (SELECT id FROM message ORDER BY id LIMIT ?)",
                arguments: [excess])
            removed += db.changesCount
        }
        guard let now else { return removed }
        try db.execute(
            sql: "DELETE FROM message WHERE createdAt < ?", arguments: [now.timeIntervalSince1970 - bounds.maximumAge])
        return removed + db.changesCount
    }

    /// Counts messages the bounds dropped, and logs the first of an episode.
    private func noteDropped(_ removed: Int) {
        guard removed > 0 else { return }
        // Which messages went is not known here: the tail may no longer be what follows.
        tail.removeAll()
        count -= removed
        dropped += removed
        guard !droppingLogged else { return }
        droppingLogged = true
        logger.warning(
            "MQTT outbox full (at most \(bounds.maximumMessages) messages, \(Int(saturating: bounds.maximumAge)) s): dropping the oldest"
        )
    }
}
