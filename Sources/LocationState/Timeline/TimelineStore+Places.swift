import Foundation
import GRDB
import LocationState
import LocationStores

/// The places of the stays, by their stable ids (``PlaceIdentity``).
public struct PlaceIndex: Sendable {
    /// The place id of each stay, by the millisecond of its start.
    public var ids: [Int64: Int]
    /// The places' records, by id.
    public var records: [Int: PlaceRecord]
    /// The places of a few stays more (not stored: the stay going on), looked at first:
    /// adding them to ``ids`` would copy it whole.
    var added: [Int64: Int] = [:]

    public init(ids: [Int64: Int], records: [Int: PlaceRecord]) {
        self.ids = ids
        self.records = records
    }

    /// The place of a stay.
    public func place(of stay: Stay) -> Int? {
        let key = PlaceIdentity.key(stay.start)
        return added[key] ?? ids[key]
    }

    /// `entries` with each stay's place, and named by its place where a user named it.
    public func apply(to entries: [TimelineEntry]) -> [TimelineEntry] {
        entries.map { entry in
            guard case .stay(var stay) = entry, let id = place(of: stay) else { return entry }
            stay.place = id
            stay.name = records[id]?.name ?? stay.name
            return .stay(stay)
        }.withTripNames()
    }
}

extension TimelineStore {
    static let placeTable = """
        CREATE TABLE IF NOT EXISTS place (
            id INTEGER PRIMARY KEY, anchor REAL NOT NULL, latitude REAL NOT NULL, longitude REAL NOT NULL, name TEXT);
        """

    /// The places of the stored stays and of `extra` (stays not stored: the open one), with
    /// the ids the stored records give them.
    public func placeIndex(extra: [Stay] = []) throws(LocationError) -> PlaceIndex {
        try placed(extra: extra, readingStays: false).index
    }

    /// Every stored stay and those of `extra` not stored, in that order, each with its
    /// ``Stay/place``, and the places' records by id.
    public func placedStays(extra: [Stay] = []) throws(LocationError) -> (stays: [Stay], records: [Int: PlaceRecord]) {
        let (stays, index) = try placed(extra: extra, readingStays: true)
        return (
            stays.map { stay in
                var stay = stay
                stay.place = index.place(of: stay)
                return stay
            }, index.records
        )
    }

    /// The places of the stored stays and of `extra`'s new ones: the places kept
    /// (``places``; made from one read of the stays the first time), with `extra` added;
    /// and, when `readingStays`, the stored stays (read) and `extra`'s new ones.
    private func placed(extra: [Stay], readingStays: Bool) throws(LocationError) -> (stays: [Stay], index: PlaceIndex) {
        do {
            return try queue.read { db in
                let book = try keptPlaces(db)
                let added = extra.filter { book.index.ids[PlaceIdentity.key($0.start)] == nil }
                    .sorted { $0.start < $1.start }
                let stored = readingStays ? try Self.allStays(db) : nil
                var index = book.index
                // One stay going on, placed without copying what is kept.
                if added.count == 1, let (id, made) = book.placing(added[0]) {
                    index.added[PlaceIdentity.key(added[0].start)] = id
                    if let made { index.records[id] = made }
                    return (stored.map { $0 + added } ?? [], index)
                }
                var more = book
                for stay in added where !more.append(stay).placed {
                    more = PlaceBook(stays: try (stored ?? Self.allStays(db)) + added, records: book.records)
                    break
                }
                return (stored.map { $0 + added } ?? [], more.index)
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// The places kept, made from the stored stays and records when there are none. In
    /// the database's queue, as every change of them.
    private func keptPlaces(_ db: Database) throws -> PlaceBook {
        if let book = places.withLock({ $0 }) { return book }
        let book = PlaceBook(stays: try Self.allStays(db), records: try Self.placeRecords(db))
        places.withLock { $0 = book }
        return book
    }

    /// Places `closed`, just stored in the caller's transaction, and stores the records
    /// that changed: one stay at a time while each starts after the others and joins one
    /// place or makes one, else all of them clustered again (``PlaceBook``).
    func place(_ closed: [Stay], _ db: Database) throws {
        guard var book = places.withLock({ $0 }) else {
            let book = try Self.reconcilePlaces(db)
            places.withLock { $0 = book }
            return
        }
        for stay in closed {
            let (placed, made) = book.append(stay)
            guard placed else {
                let book = try Self.reconcilePlaces(db)
                places.withLock { $0 = book }
                return
            }
            if let made { try Self.insert(made, db) }
        }
        places.withLock { $0 = book }
    }

    /// Names place `id` (nil: takes the user's name away); `pending` are the stays not
    /// stored yet, so that the place of the stay going on can be named too.
    ///
    /// - Throws: `usage` when there is no such place.
    public func renamePlace(_ id: Int, to name: String?, pending: [Stay] = []) throws(LocationError) {
        let found: Bool
        do {
            found = try queue.write { db in
                // The places are made again from what is stored at the next read (in the
                // database's queue, as every use of them: no read can come in between).
                defer { places.withLock { $0 = nil } }
                try Self.reconcilePlaces(db)
                try db.execute(sql: "UPDATE place SET name = ? WHERE id = ?", arguments: [name, id])
                if db.changesCount > 0 { return true }
                // A place whose only stay goes on: its record is made now.
                let stored = try Self.allStays(db)
                let (_, records) = PlaceIdentity.assign(stays: stored + pending, records: try Self.placeRecords(db))
                guard var record = records.first(where: { $0.id == id }) else { return false }
                record.name = name
                try Self.insert(record, db)
                return true
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
        guard found else { throw .usage("there is no place \(id) (`locationd places` lists them)") }
    }

    /// Brings the place records up to the stored stays: what a closed stay, a dropped one
    /// or a rebuild changes, in the caller's transaction.
    @discardableResult
    static func reconcilePlaces(_ db: Database) throws -> PlaceBook {
        try db.execute(sql: placeTable)
        let book = PlaceBook(stays: try allStays(db), records: try placeRecords(db))
        try db.execute(sql: "DELETE FROM place")
        for record in book.records { try insert(record, db) }
        return book
    }

    private static func insert(_ record: PlaceRecord, _ db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO place (id, anchor, latitude, longitude, name) VALUES (?, ?, ?, ?, ?)",
            arguments: [record.id, record.anchor.timeIntervalSince1970, record.latitude, record.longitude, record.name])
    }

    private static func allStays(_ db: Database) throws -> [Stay] {
        let named = try db.columns(in: "stay").contains { $0.name == "name" }
        return try Row.fetchAll(db, sql: #"SELECT * FROM stay ORDER BY start"#).map { row in
            Stay(
                start: Date(timeIntervalSince1970: row["start"]), end: Date(timeIntervalSince1970: row["end"]),
                latitude: row["latitude"], longitude: row["longitude"], radius: row["radius"], fixes: row["fixes"],
                name: named ? row["name"] : nil)
        }
    }

    private static func placeRecords(_ db: Database) throws -> [PlaceRecord] {
        guard try db.tableExists("place") else { return [] }
        return try Row.fetchAll(db, sql: "SELECT * FROM place ORDER BY id").map { row in
            PlaceRecord(
                id: row["id"], anchor: Date(timeIntervalSince1970: row["anchor"]), latitude: row["latitude"],
                longitude: row["longitude"], name: row["name"])
        }
    }
}
