import Foundation
import GRDB
import LocationState
import LocationStores
import Logging

/// The timeline on disk: closed stays and trips, and the motion tracker's state, in one
/// SQLite database (through GRDB, WAL) in the data directory, mode 0600.
///
/// Each ``record(_:tracker:)`` is one transaction: the stays and trips a fix closed and
/// the tracker's state after it, together, so a process killed at any moment loses no
/// closed stay or trip and restarts from a state that matches what is stored (in WAL
/// mode with `synchronous = NORMAL` a power cut may lose the last transactions, a
/// process kill none). A stay is keyed by its start: a later row with the same start
/// (a stay that was continued) replaces it. A stay dropped by a gap after a trip reached
/// it takes that trip's `to` away, in the same transaction.
///
/// A file that is not a usable timeline is moved aside to `timeline.sqlite.corrupt-TIMESTAMP`
/// with one warning, and a new one is started (`locationd timeline --rebuild` fills it
/// again from the recorded tracks).
///
/// - Important: not thread-safe for writing; its owner confines writes to one serial
///   queue. Readers in other processes open it with ``openReadOnly(at:)``.
public final class TimelineStore: @unchecked Sendable {
    // `@unchecked`: the only stored state is GRDB's `DatabaseQueue`, itself Sendable, and
    // the file's URL.

    /// The database's file name inside a data directory.
    public static let fileName = DataDirectory.Name.timeline

    /// The database file.
    public let url: URL
    package let queue: DatabaseQueue
    /// The places of the stored stays, kept up as stays are stored (``PlaceBook``); nil
    /// until first needed, and again after anything else changed the stays or the places.
    let places = Locked<PlaceBook?>(nil)

    private init(url: URL, queue: DatabaseQueue) {
        self.url = url
        self.queue = queue
    }

    /// Opens the timeline in `directory` for writing, creating it (and the directory)
    /// when missing, and moving a corrupt one aside.
    ///
    /// - Throws: ``LocationError`` when the file can neither be opened nor moved aside
    ///   and created again.
    public convenience init(directory: URL, logger: Logger, now: Date = Date()) throws(LocationError) {
        let url = directory.appendingPathComponent(Self.fileName)
        try DataDirectory.create(directory)
        let queue = try SQLiteFiles.openReplacingCorrupt(
            url.path, naming: "timeline",
            advice: "; `locationd timeline --rebuild` makes it again from the recorded tracks", at: now,
            logger: logger, Self.openQueue)
        self.init(url: url, queue: queue)
    }

    /// Opens an existing timeline for reading only; it never creates or changes the file.
    public static func openReadOnly(at url: URL) throws(LocationError) -> TimelineStore {
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw .fileNotFound(path: url.path)
        }
        try SQLiteFiles.refuseUnusable(url.path, reading: true)
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(1)
        configuration.label = "locationd.timeline.reader"
        do {
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            try checkSchema(queue, path: url.path)
            return TimelineStore(url: url, queue: queue)
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    private static func openQueue(path: String) throws(LocationError) -> DatabaseQueue {
        // Made 0600 before SQLite opens it: SQLite gives the -wal and -shm files the database's mode.
        try SQLiteFiles.createPrivate(path)
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(1)
        configuration.label = "locationd.timeline"
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS stay (
                            start REAL PRIMARY KEY, "end" REAL NOT NULL, latitude REAL NOT NULL,
                            longitude REAL NOT NULL, radius REAL NOT NULL, fixes INTEGER NOT NULL);
                        CREATE TABLE IF NOT EXISTS trip (
                            start REAL PRIMARY KEY, "end" REAL NOT NULL, fromStay REAL, toStay REAL,
                            distance REAL NOT NULL, maxSpeed REAL NOT NULL, fixes INTEGER NOT NULL);
                        CREATE TABLE IF NOT EXISTS tracker (
                            id INTEGER PRIMARY KEY CHECK (id = 1), state BLOB NOT NULL);
                        """)
                try db.execute(sql: odometerTable)
                // A stay's name came later: a file without the column gets it, empty.
                if try !db.columns(in: "stay").contains(where: { $0.name == "name" }) {
                    try db.execute(sql: "ALTER TABLE stay ADD COLUMN name TEXT")
                }
                try reconcilePlaces(db)
            }
            try checkSchema(queue, path: path)
            return queue
        } catch {
            throw TileDatabase.locationError(error, path: path)
        }
    }

    private static func checkSchema(_ queue: DatabaseQueue, path: String) throws {
        try queue.read { db in
            let expected: [String: Set<String>] = [
                "stay": ["start", "end", "latitude", "longitude", "radius", "fixes"],
                "trip": ["start", "end", "fromStay", "toStay", "distance", "maxSpeed", "fixes"],
                "tracker": ["id", "state"],
            ]
            for (table, columns) in expected {
                guard try db.tableExists(table), columns.isSubset(of: try db.columns(in: table).map(\.name)) else {
                    throw LocationError.databaseCorrupt(path: path, reason: "it has no locationd \(table) table")
                }
            }
        }
    }

    /// Stores the stays and trips among `events` and, when given, the tracker's state, in one transaction.
    public func record(_ events: [TimelineEvent], tracker: MotionTracker?) throws(LocationError) {
        let state = try tracker.map { tracker throws(LocationError) in try Self.encode(tracker) }
        do {
            try queue.write { db in
                for event in events { try Self.insert(event, db) }
                let closed = events.compactMap { if case .stayClosed(let stay) = $0 { stay } else { nil } }
                if !closed.isEmpty { try place(closed, db) }
                if let state {
                    try db.execute(sql: "INSERT OR REPLACE INTO tracker (id, state) VALUES (1, ?)", arguments: [state])
                }
            }
        } catch {
            // The transaction is rolled back: the places kept are no longer those stored.
            places.withLock { $0 = nil }
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// Replaces everything with `entries` (closed stays and trips) and the tracker's
    /// state, in one transaction: what a rebuild from the recorded tracks writes.
    public func replaceAll(with events: [TimelineEvent], tracker: MotionTracker) throws(LocationError) {
        let state = try Self.encode(tracker)
        do {
            try queue.write { db in
                try db.execute(sql: "DELETE FROM stay; DELETE FROM trip; DELETE FROM tracker")
                for event in events { try Self.insert(event, db) }
                places.withLock { $0 = nil }
                try Self.reconcilePlaces(db)
                try db.execute(sql: "INSERT INTO tracker (id, state) VALUES (1, ?)", arguments: [state])
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// The tracker's stored state, or nil when there is none or it cannot be read (an
    /// older format): the tracker then starts afresh.
    public func tracker() throws(LocationError) -> MotionTracker? {
        let data: Data?
        do {
            data = try queue.read { db in try Data.fetchOne(db, sql: "SELECT state FROM tracker WHERE id = 1") }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
        return data.flatMap { try? JSONDecoder().decode(MotionTracker.self, from: $0) }
    }

    private static func encode(_ tracker: MotionTracker) throws(LocationError) -> Data {
        do {
            return Data(try JSONLineEncoder().encode(tracker).utf8)
        } catch {
            throw .internalError("the motion tracker's state cannot be encoded: \(error)")
        }
    }

    private static func insert(_ event: TimelineEvent, _ db: Database) throws {
        switch event {
        case .stayClosed(let stay):
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO stay (start, "end", latitude, longitude, radius, fixes, name)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    stay.start.timeIntervalSince1970, stay.end.timeIntervalSince1970, stay.latitude, stay.longitude,
                    stay.radius, stay.fixes, stay.name,
                ])
        case .tripClosed(let trip):
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO trip (start, "end", fromStay, toStay, distance, maxSpeed, fixes)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    trip.start.timeIntervalSince1970, trip.end.timeIntervalSince1970,
                    trip.from?.timeIntervalSince1970, trip.to?.timeIntervalSince1970, trip.distance, trip.maxSpeed,
                    trip.fixes,
                ])
        case .stayDropped(let stay):
            // The stay will never be stored: the trip that reached it reached none.
            try db.execute(
                sql: "UPDATE trip SET toStay = NULL WHERE toStay = ?", arguments: [stay.start.timeIntervalSince1970])
        case .motion:
            break
        }
    }
}
