import Foundation
import GRDB
import LocationState
import LocationStores

extension TimelineStore {
    /// The stays and trips that overlap `from..<to`, closed and open, in time order:
    /// the closed ones stored, and what the stored tracker holds open.
    public func entries(from: Date, to: Date) throws(LocationError) -> [TimelineEntry] {
        try entries(from: from, to: to, pending: try tracker()?.pendingEntries ?? [])
    }

    /// The stored stays and trips that overlap `from..<to` with `pending` (a live tracker's
    /// ``MotionTracker/pendingEntries``), in time order.
    public func entries(from: Date, to: Date, pending: [TimelineEntry]) throws(LocationError) -> [TimelineEntry] {
        let (low, high) = (from.timeIntervalSince1970, to.timeIntervalSince1970)
        var entries: [TimelineEntry]
        do {
            entries = try queue.read { db in
                let stays = try Row.fetchAll(
                    db, sql: #"SELECT * FROM stay WHERE "end" >= ? AND start < ? ORDER BY start"#,
                    arguments: [low, high]
                ).map { row in
                    TimelineEntry.stay(
                        Stay(
                            start: Self.date(row["start"]), end: Self.date(row["end"]), latitude: row["latitude"],
                            longitude: row["longitude"], radius: row["radius"], fixes: row["fixes"],
                            name: row.hasColumn("name") ? row["name"] : nil))
                }
                let trips = try Row.fetchAll(
                    db, sql: #"SELECT * FROM trip WHERE "end" >= ? AND start < ? ORDER BY start"#,
                    arguments: [low, high]
                ).map { row in
                    TimelineEntry.trip(
                        Trip(
                            start: Self.date(row["start"]), end: Self.date(row["end"]),
                            from: (row["fromStay"] as Double?).map(Date.init(timeIntervalSince1970:)),
                            to: (row["toStay"] as Double?).map(Date.init(timeIntervalSince1970:)),
                            distance: row["distance"], maxSpeed: row["maxSpeed"], fixes: row["fixes"]))
                }
                return stays + trips
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
        let stored = Set(entries.map(\.start))
        for entry in pending where entry.end >= from && entry.start < to {
            // A continued stay is stored closed under its start until it closes again.
            if case .stay = entry, stored.contains(entry.start) {
                entries.removeAll { if case .stay(let stay) = $0 { stay.start == entry.start } else { false } }
            }
            entries.append(entry)
        }
        return entries.sorted { ($0.start, $0.isOpen ? 1 : 0) < ($1.start, $1.isOpen ? 1 : 0) }
    }

    /// How many stored stays and trips overlap `from..<to`, counted without reading them:
    /// what an answer is bounded by before it is built.
    public func count(from: Date, to: Date) throws(LocationError) -> Int {
        let arguments: StatementArguments = [from.timeIntervalSince1970, to.timeIntervalSince1970]
        do {
            return try queue.read { db in
                try ["stay", "trip"].reduce(0) { total, table in
                    total
                        + (try Int.fetchOne(
                            db, sql: #"SELECT count(*) FROM \#(table) WHERE "end" >= ? AND start < ?"#,
                            arguments: arguments) ?? 0)
                }
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    private static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }
}
