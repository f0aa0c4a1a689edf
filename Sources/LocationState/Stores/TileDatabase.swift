import Foundation
import GRDB
import LocationState

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tile log on disk: one SQLite database (through GRDB, in WAL mode) with a row
/// per tile seen: zoom, x, y, first and last sighting, visits.
///
/// One process writes (the daemon, or a replay with a data directory); any number may
/// read at the same time through ``openReadOnly(at:)``, since WAL lets readers go on
/// while a writer commits.
///
/// The database and its `-wal` and `-shm` files are never symbolic links (a link is
/// refused before SQLite opens anything, so nothing is created at a link's target)
/// and are mode 0600 whatever the umask: the database file is created by locationd
/// with 0600, and SQLite gives the `-wal` and `-shm` files the database's mode.
///
/// - Important: a file that is not a usable tile database is never overwritten,
///   repaired or deleted: opening it fails with ``LocationError/databaseCorrupt(path:reason:)``.
///   Every ``add(_:)`` is one transaction: after a crash, a full disk or a lock
///   timeout the database holds either all of a batch or none of it.
public struct TileDatabase: Sendable {
    /// The database's file name inside a data directory.
    public static let fileName = DataDirectory.Name.tiles

    /// The database file.
    public let url: URL
    private let queue: DatabaseQueue

    private init(url: URL, queue: DatabaseQueue) {
        self.url = url
        self.queue = queue
    }

    /// Opens the database for writing, creating its directory (mode 0700) and file
    /// (mode 0600) when missing.
    ///
    /// - Parameters:
    ///   - url: the database file, usually `DATA_DIR/tiles.sqlite`.
    ///   - busyTimeout: how long a write waits for another process's lock before it
    ///     fails with ``LocationError/databaseLocked(path:)``.
    public static func open(at url: URL, busyTimeout: Duration = .seconds(1)) throws(LocationError) -> TileDatabase {
        try open(at: url, busyTimeout: busyTimeout, maxPageCount: nil)
    }

    /// ``open(at:busyTimeout:)`` with a cap on the file's size in pages, which makes
    /// SQLite fail writes with "database or disk is full" past it: a full disk for tests.
    package static func open(at url: URL, busyTimeout: Duration, maxPageCount: Int?) throws(LocationError)
        -> TileDatabase
    {
        let path = url.path
        let directory = url.deletingLastPathComponent()
        try DataDirectory.create(directory)
        try SQLiteFiles.createPrivate(path)
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(busyTimeout.inSeconds)
        configuration.label = "locationd.tiles"
        configuration.prepareDatabase { db in
            // In WAL mode NORMAL loses no committed transaction when the process dies,
            // only (at worst) the last ones when the machine loses power.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            if let maxPageCount { try db.execute(sql: "PRAGMA max_page_count = \(maxPageCount)") }
        }
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            try migrator.migrate(queue)
            let database = TileDatabase(url: url, queue: queue)
            try database.checkSchema()
            return database
        } catch {
            throw locationError(error, path: path)
        }
    }

    /// Opens an existing database for reading only; it never creates, migrates or
    /// changes the file.
    ///
    /// - Throws: ``LocationError/noTileDatabase(path:)`` when there is no file,
    ///   ``LocationError/databaseCorrupt(path:reason:)`` when it is not a tile database.
    public static func openReadOnly(at url: URL) throws(LocationError) -> TileDatabase {
        let path = url.path
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .noTileDatabase(path: path) }
        try SQLiteFiles.refuseUnusable(path, reading: true)
        var configuration = Configuration()
        configuration.readonly = true
        // A reader beside the daemon may meet the writer's lock for a moment (while it
        // checkpoints the WAL, or the first reader rebuilds the shared WAL index): wait, not fail.
        configuration.busyMode = .timeout(1)
        configuration.label = "locationd.tiles.reader"
        do {
            let database = TileDatabase(url: url, queue: try DatabaseQueue(path: path, configuration: configuration))
            try database.checkSchema()
            return database
        } catch {
            throw locationError(error, path: path)
        }
    }

    /// Adds a batch in one transaction: a new tile is inserted, a known one keeps its
    /// earliest first sighting and latest last sighting and adds the visits.
    public func add(_ records: some Collection<TileRecord>) throws(LocationError) {
        guard !records.isEmpty else { return }
        do {
            try queue.write { db in
                let statement = try db.cachedStatement(
                    sql: """
                        INSERT INTO tile (zoom, x, y, firstSeen, lastSeen, visits) VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT (zoom, x, y) DO UPDATE SET
                            firstSeen = min(firstSeen, excluded.firstSeen),
                            lastSeen = max(lastSeen, excluded.lastSeen),
                            visits = visits + excluded.visits
                        """)
                for record in records {
                    try statement.execute(arguments: [
                        record.tile.zoom, record.tile.x, record.tile.y,
                        record.firstSeen.timeIntervalSince1970, record.lastSeen.timeIntervalSince1970,
                        record.visits,
                    ])
                }
            }
        } catch {
            throw Self.locationError(error, path: url.path)
        }
    }

    /// The tiles at one zoom, or at every zoom when `zoom` is `nil`, ordered by zoom, x, y.
    ///
    /// - Important: holds them all in memory; use ``forEachTile(zoom:_:)`` for a log of any size.
    public func tiles(zoom: Int? = nil) throws(LocationError) -> [TileRecord] {
        var records: [TileRecord] = []
        try forEachTile(zoom: zoom) { records.append($0) }
        return records
    }

    /// Hands the tiles at one zoom, or at every zoom when `zoom` is `nil`, to `body`
    /// one at a time, ordered by zoom, x, y (the table's own order: no sort), from a
    /// cursor: memory stays flat whatever the size of the log.
    ///
    /// - Throws: ``LocationError/databaseCorrupt(path:reason:)`` for an impossible
    ///   tile, or what `body` throws, as a ``LocationError``.
    public func forEachTile(zoom: Int? = nil, _ body: (TileRecord) throws -> Void) throws(LocationError) {
        try read { db in
            let rows =
                if let zoom {
                    try Row.fetchCursor(
                        db, sql: "SELECT * FROM tile WHERE zoom = ? ORDER BY zoom, x, y", arguments: [zoom])
                } else {
                    try Row.fetchCursor(db, sql: "SELECT * FROM tile ORDER BY zoom, x, y")
                }
            while let row = try rows.next() { try body(try Self.record(row, path: url.path)) }
        }
    }

    /// One page of the tile list: up to `limit` tiles that come after `tile` in the
    /// table's order (zoom, x, y), at one zoom or at every zoom when `zoom` is `nil`.
    ///
    /// Reading a long list page by page, each page after the last tile of the one
    /// before, gives the same tiles in the same order as ``forEachTile(zoom:_:)`` on a
    /// log that does not change meanwhile, and holds no read transaction open between
    /// pages (a slow reader never keeps the write-ahead log from being checkpointed).
    public func tiles(zoom: Int?, after tile: Tile?, limit: Int) throws(LocationError) -> [TileRecord] {
        let start: [Int] = tile.map { [$0.zoom, $0.x, $0.y] } ?? [-1, -1, -1]
        return try read { db in
            let rows =
                if let zoom {
                    try Row.fetchCursor(
                        db,
                        sql:
                            "SELECT * FROM tile WHERE zoom = ? AND (zoom, x, y) > (?, ?, ?) ORDER BY zoom, x, y LIMIT ?",
                        arguments: [zoom, start[0], start[1], start[2], limit])
                } else {
                    try Row.fetchCursor(
                        db, sql: "SELECT * FROM tile WHERE (zoom, x, y) > (?, ?, ?) ORDER BY zoom, x, y LIMIT ?",
                        arguments: [start[0], start[1], start[2], limit])
                }
            var records: [TileRecord] = []
            records.reserveCapacity(limit)
            while let row = try rows.next() { records.append(try Self.record(row, path: url.path)) }
            return records
        }
    }

    /// Per zoom present in the log: the number of tiles, the visits, the first and
    /// last sighting; ordered by zoom.
    public func summaries() throws(LocationError) -> [TileZoomSummary] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT zoom, count(*) AS tiles, sum(visits) AS visits,
                        min(firstSeen) AS firstSeen, max(lastSeen) AS lastSeen
                    FROM tile GROUP BY zoom ORDER BY zoom
                    """
            ).map { row in
                TileZoomSummary(
                    zoom: row["zoom"], tiles: row["tiles"], visits: row["visits"],
                    firstSeen: Date(timeIntervalSince1970: row["firstSeen"]),
                    lastSeen: Date(timeIntervalSince1970: row["lastSeen"]))
            }
        }
    }

    /// The smallest rectangle of tiles that holds every tile at the zoom, or `nil` when there are none.
    public func range(zoom: Int) throws(LocationError) -> TileRange? {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT min(x), max(x), min(y), max(y) FROM tile WHERE zoom = ?", arguments: [zoom]),
                let minX: Int = row[0], let maxX: Int = row[1], let minY: Int = row[2], let maxY: Int = row[3]
            else { return nil }
            return TileRange(zoom: zoom, minX: minX, maxX: maxX, minY: minY, maxY: maxY)
        }
    }

    /// The largest square block of visited tiles at the zoom (``TileSquare/largest(in:)``),
    /// streamed in the table's (x, y) order through a ``TileSquare/Scanner``: memory
    /// follows the height of the covered extent, not the number of tiles.
    public func maxSquare(zoom: Int) throws(LocationError) -> TileSquare? {
        try read { db in
            var scanner = TileSquare.Scanner()
            let rows = try Row.fetchCursor(
                db, sql: "SELECT x, y FROM tile WHERE zoom = ? ORDER BY x, y", arguments: [zoom])
            while let row = try rows.next() { scanner.add(Tile(unchecked: zoom, x: row[0], y: row[1])) }
            return scanner.largest
        }
    }

    /// Runs `PRAGMA integrity_check`: `true` when SQLite finds the file sound.
    public func isIntact() throws(LocationError) -> Bool {
        try read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok" }
    }

    private func read<T>(_ body: (Database) throws -> T) throws(LocationError) -> T {
        do {
            return try queue.read(body)
        } catch {
            throw Self.locationError(error, path: url.path)
        }
    }

    private func checkSchema() throws {
        // Without the table (an empty file), SQLite's "no such table" would read as a write error.
        let columns = try queue.read { db in try db.tableExists("tile") ? db.columns(in: "tile").map(\.name) : [] }
        guard Set(["zoom", "x", "y", "firstSeen", "lastSeen", "visits"]).isSubset(of: columns) else {
            throw LocationError.databaseCorrupt(path: url.path, reason: "it has no locationd tile table")
        }
    }

    private static func record(_ row: Row, path: String) throws -> TileRecord {
        let zoom: Int = row["zoom"]
        let x: Int = row["x"]
        let y: Int = row["y"]
        guard let tile = Tile(zoom: zoom, x: x, y: y) else {
            throw LocationError.databaseCorrupt(path: path, reason: "it holds an impossible tile \(zoom)/\(x)/\(y)")
        }
        return TileRecord(
            tile: tile, firstSeen: Date(timeIntervalSince1970: row["firstSeen"]),
            lastSeen: Date(timeIntervalSince1970: row["lastSeen"]), visits: row["visits"])
    }

    private static let migrator: DatabaseMigrator = {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE tile (
                        zoom INTEGER NOT NULL,
                        x INTEGER NOT NULL,
                        y INTEGER NOT NULL,
                        firstSeen REAL NOT NULL,
                        lastSeen REAL NOT NULL,
                        visits INTEGER NOT NULL,
                        PRIMARY KEY (zoom, x, y)
                    ) WITHOUT ROWID
                    """)
        }
        return migrator
    }()

    /// Maps what SQLite or the file system reported to the one sentence a user can act on.
    package static func locationError(_ error: any Error, path: String) -> LocationError {
        if let error = error as? LocationError { return error }
        guard let error = error as? DatabaseError else { return .cannotWrite(path: path, reason: reason(of: error)) }
        let message = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT, .SQLITE_FORMAT, .SQLITE_SCHEMA:
            return .databaseCorrupt(path: path, reason: message)
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return .databaseLocked(path: path)
        case .SQLITE_FULL:
            return .cannotWrite(path: path, reason: "the disk or the database is full")
        case .SQLITE_CANTOPEN:
            return FileManager.default.fileExists(atPath: path)
                ? .fileUnreadable(path: path, reason: message) : .cannotWrite(path: path, reason: message)
        default:
            return .cannotWrite(path: path, reason: message)
        }
    }
}

/// What the tile log holds at one zoom.
public struct TileZoomSummary: Sendable, Hashable {
    /// The zoom.
    public var zoom: Int
    /// Distinct tiles seen.
    public var tiles: Int
    /// Entries into tiles, summed over the tiles.
    public var visits: Int
    /// The earliest first sighting (UTC).
    public var firstSeen: Date
    /// The latest last sighting (UTC).
    public var lastSeen: Date

    public init(zoom: Int, tiles: Int, visits: Int, firstSeen: Date, lastSeen: Date) {
        self.zoom = zoom
        self.tiles = tiles
        self.visits = visits
        self.firstSeen = firstSeen
        self.lastSeen = lastSeen
    }
}

/// A one-phrase reason for an error that is not SQLite's.
private func reason(of error: any Error) -> String {
    (error as NSError).localizedDescription
}
