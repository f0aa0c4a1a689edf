import Foundation
import GRDB
import LocationState
import LocationStores
import Logging

/// The fixes waiting for the uplinks, on disk, each stored once for every target, with
/// one cursor per target: one SQLite database (through GRDB, WAL) in the data
/// directory, mode 0600.
///
/// A target's cursor (``Cursor``) says which fixes it has: every fix up to `delivered`,
/// and `ahead` (the newest fix, sent before the backlog). A cursor moves only when the
/// server's answer said delivered, so a server away for hours, a daemon killed with
/// SIGKILL or a power cut loses nothing already appended; a fix goes from the file once
/// every target has it (``prune()``). A target not seen before starts at the newest fix.
///
/// Bounded: beyond ``Bounds/maximumFixes`` or older than ``Bounds/maximumAge`` the oldest
/// fixes are dropped, counted in ``dropped``, and logged once per episode.
///
/// A file that is not a usable outbox is moved aside to
/// `uplink-outbox.sqlite.corrupt-TIMESTAMP`, with one warning, and a new one is started.
///
/// - Important: not thread-safe; its owner (``Uplinks``) confines it to one actor.
public final class UplinkOutbox {
    /// The database's file name inside a data directory.
    public static let fileName = DataDirectory.Name.uplinkOutbox

    /// How much the outbox keeps at most.
    public struct Bounds: Sendable, Equatable {
        /// Fixes kept at most (default 1,000,000: a day at 10 Hz, about 200 MB).
        public var maximumFixes: Int
        /// Seconds a fix is kept at most (default 7 days).
        public var maximumAge: Double

        public init(maximumFixes: Int = 1_000_000, maximumAge: Double = 7 * 86_400) {
            self.maximumFixes = maximumFixes
            self.maximumAge = maximumAge
        }
    }

    /// A stored fix.
    public struct Fix: Sendable, Equatable {
        /// Its place in the order; larger is newer.
        public var id: Int64
        public var location: Location
        /// Whether the device was moving when it came (nil: motion not tracked or unknown).
        public var moving: Bool?
    }

    /// Which fixes a target has.
    public struct Cursor: Sendable, Equatable {
        /// Every fix up to this id is delivered (0: none).
        public var delivered: Int64
        /// A fix after `delivered` that is delivered too (the newest, sent first).
        public var ahead: Int64?

        public init(delivered: Int64, ahead: Int64? = nil) {
            self.delivered = delivered
            self.ahead = ahead
        }
    }

    public let url: URL
    public let bounds: Bounds
    private let queue: DatabaseQueue
    private let logger: Logger
    /// Fixes in the file.
    public private(set) var count: Int
    /// The newest fix's id (0 when none was ever appended to this file).
    public private(set) var newestID: Int64
    /// Fixes dropped by the bounds since the outbox was opened.
    public private(set) var dropped = 0
    private var droppingLogged = false
    /// The newest fixes, consecutive, oldest first: a fix sent as it comes costs no read.
    private var tail: [Fix] = []
    private static let tailLimit = 1024
    private var agedOutAt = Date.distantPast
    private static let ageCheckInterval = 60.0

    /// Opens the outbox in `directory`, creating it (and the directory) when missing.
    public init(
        directory: URL, bounds: Bounds = Bounds(), logger: Logger = Logger(label: "locationd.uplinks"),
        now: Date = Date()
    ) throws(LocationError) {
        url = directory.appendingPathComponent(Self.fileName)
        self.bounds = bounds
        self.logger = logger
        try DataDirectory.create(directory)
        queue = try SQLiteFiles.openReplacingCorrupt(
            url.path, naming: "uplink outbox", at: now, logger: logger, Self.openQueue)
        do {
            (count, newestID) = try queue.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM fix") ?? 0,
                    max(
                        try Int64.fetchOne(db, sql: "SELECT max(id) FROM fix") ?? 0,
                        try Int64.fetchOne(db, sql: "SELECT max(max(delivered, coalesce(ahead, 0))) FROM cursor") ?? 0)
                )
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
        let removed = try write { db in try self.trim(db, now: now) }
        agedOutAt = now
        noteDropped(removed)
    }

    private static func openQueue(path: String) throws(LocationError) -> DatabaseQueue {
        let queue = try SQLiteFiles.exclusiveQueue(path, label: "locationd.uplink-outbox")
        do {
            try queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS fix (
                            id INTEGER PRIMARY KEY,
                            location BLOB NOT NULL,
                            moving INTEGER,
                            createdAt REAL NOT NULL);
                        CREATE TABLE IF NOT EXISTS cursor (
                            target TEXT PRIMARY KEY,
                            delivered INTEGER NOT NULL,
                            ahead INTEGER)
                        """)
            }
            let (fixColumns, cursorColumns) = try queue.read { db in
                (try db.columns(in: "fix").map(\.name), try db.columns(in: "cursor").map(\.name))
            }
            guard Set(["id", "location", "moving", "createdAt"]).isSubset(of: fixColumns),
                Set(["target", "delivered", "ahead"]).isSubset(of: cursorColumns)
            else {
                throw LocationError.databaseCorrupt(path: path, reason: "it has no locationd uplink tables")
            }
            return queue
        } catch {
            throw TileDatabase.locationError(error, path: path)
        }
    }

    private func write<T>(_ body: (Database) throws -> T) throws(LocationError) -> T {
        do {
            return try queue.write(body)
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// Runs one statement with no transaction around it: SQLite makes a single statement
    /// atomic on its own, and BEGIN and COMMIT would double the work of a small write.
    private func writeOne(_ statement: (Database) throws -> Void) throws(LocationError) {
        do {
            try queue.writeWithoutTransaction(statement)
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// Appends a fix and applies the bounds, atomically: when it throws (a full
    /// disk), nothing changed. Returns its id.
    @discardableResult
    public func append(_ location: Location, moving: Bool?, at now: Date = Date()) throws(LocationError) -> Int64 {
        let id = newestID + 1
        var json: [UInt8] = []
        location.appendJSON(to: &json)
        let checkAge = now.timeIntervalSince(agedOutAt) >= Self.ageCheckInterval || now < agedOutAt
        let excess = count + 1 - bounds.maximumFixes
        func insert(_ db: Database) throws {
            try db.cachedStatement(sql: "INSERT INTO fix (id, location, moving, createdAt) VALUES (?, ?, ?, ?)")
                .execute(arguments: [id, Data(json), moving, now.timeIntervalSince1970])
        }
        var removed = 0
        if excess > 0 || checkAge {
            removed = try write { db -> Int in
                try insert(db)
                return try self.trim(db, now: checkAge ? now : nil, excess: excess)
            }
        } else {
            try writeOne(insert)
        }
        newestID = id
        count += 1
        if checkAge { agedOutAt = now }
        noteDropped(removed)
        if tail.count == Self.tailLimit { tail.removeFirst(Self.tailLimit / 2) }
        tail.append(Fix(id: id, location: location, moving: moving))
        return id
    }

    /// Up to `limit` fixes after `id`, oldest first.
    public func fixes(after id: Int64, limit: Int) throws(LocationError) -> [Fix] {
        if let first = tail.first, first.id <= id + 1 {
            return Array(tail.drop { $0.id <= id }.prefix(limit))
        }
        do {
            return try queue.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT id, location, moving FROM fix WHERE id > ? ORDER BY id LIMIT ?",
                    arguments: [id, limit]
                ).compactMap(Self.fix)
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// The fix with id `id`, if the outbox still has it.
    public func fix(_ id: Int64) throws(LocationError) -> Fix? {
        if let first = tail.first, first.id <= id, let fix = tail.first(where: { $0.id == id }) { return fix }
        do {
            return try queue.read { db in
                try Row.fetchOne(db, sql: "SELECT id, location, moving FROM fix WHERE id = ?", arguments: [id])
                    .flatMap(Self.fix)
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// A row as a fix; nil (skipped) for one whose JSON cannot be read.
    private static func fix(_ row: Row) -> Fix? {
        guard let location = try? JSONDecoder().decode(Location.self, from: row["location"] as Data) else {
            return nil
        }
        return Fix(id: row["id"], location: location, moving: row["moving"])
    }

    /// Fixes after `id` (how many a target has still to get).
    public func count(after id: Int64) throws(LocationError) -> Int {
        if let first = tail.first, first.id <= id + 1 { return tail.count { $0.id > id } }
        do {
            return try queue.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM fix WHERE id > ?", arguments: [id]) ?? 0
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// The cursors of `targets` (keys), making those not seen before at the newest fix,
    /// and forgetting the cursors of targets no longer configured.
    public func cursors(for targets: [String]) throws(LocationError) -> [String: Cursor] {
        let newest = newestID
        return try write { db in
            var cursors: [String: Cursor] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT target, delivered, ahead FROM cursor") {
                cursors[row["target"]] = Cursor(delivered: row["delivered"], ahead: row["ahead"])
            }
            for gone in Set(cursors.keys).subtracting(targets) {
                try db.execute(sql: "DELETE FROM cursor WHERE target = ?", arguments: [gone])
                cursors[gone] = nil
            }
            for target in targets where cursors[target] == nil {
                try db.execute(
                    sql: "INSERT INTO cursor (target, delivered, ahead) VALUES (?, ?, NULL)",
                    arguments: [target, newest])
                cursors[target] = Cursor(delivered: newest)
            }
            return cursors
        }
    }

    /// Stores `target`'s cursor (one statement).
    public func setCursor(_ cursor: Cursor, for target: String) throws(LocationError) {
        try writeOne { db in
            try db.cachedStatement(sql: "UPDATE cursor SET delivered = ?, ahead = ? WHERE target = ?")
                .execute(arguments: [cursor.delivered, cursor.ahead, target])
        }
    }

    /// Removes the fixes every target has (up to the smallest `delivered`); returns how many.
    @discardableResult
    public func prune() throws(LocationError) -> Int {
        let removed = try write { db -> Int in
            guard let lowest = try Int64.fetchOne(db, sql: "SELECT min(delivered) FROM cursor") else {
                try db.execute(sql: "DELETE FROM fix")
                return db.changesCount
            }
            try db.execute(sql: "DELETE FROM fix WHERE id <= ?", arguments: [lowest])
            return db.changesCount
        }
        count -= removed
        return removed
    }

    /// Deletes the fixes beyond the bounds (`excess` oldest, and unless `now` is nil
    /// those older than the maximum age); returns how many.
    private func trim(_ db: Database, now: Date?, excess: Int? = nil) throws -> Int {
        var removed = 0
        let excess = excess ?? (count - bounds.maximumFixes)
        if excess > 0 {
            try db.execute(
                sql: "DELETE FROM fix WHERE id IN (SELECT id FROM fix ORDER BY id LIMIT ?)", arguments: [excess])
            removed += db.changesCount
        }
        if let now {
            try db.execute(
                sql: "DELETE FROM fix WHERE createdAt < ?",
                arguments: [now.timeIntervalSince1970 - bounds.maximumAge])
            removed += db.changesCount
        }
        return removed
    }

    /// Counts fixes the bounds dropped, and logs the first of an episode.
    private func noteDropped(_ removed: Int) {
        guard removed > 0 else {
            if droppingLogged, count < bounds.maximumFixes / 2 { droppingLogged = false }
            return
        }
        tail.removeAll()
        count -= removed
        dropped += removed
        guard !droppingLogged else { return }
        droppingLogged = true
        logger.warning(
            "uplink outbox full (at most \(bounds.maximumFixes) fixes, \(Int(saturating: bounds.maximumAge)) s): dropping the oldest; the targets behind miss them"
        )
    }
}
