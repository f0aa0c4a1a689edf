import Foundation
import GRDB
import LocationState
import LocationStores

extension TimelineStore {
    /// The table of the odometer's setting: one row once it is set. Made when the store is
    /// opened for writing; a file without it (an older one, read only) has no setting.
    static let odometerTable = """
        CREATE TABLE IF NOT EXISTS odometer (
            id INTEGER PRIMARY KEY CHECK (id = 1), setAt REAL NOT NULL, metres REAL NOT NULL);
        """

    /// The odometer's setting; one that was never set when there is none.
    public func odometer() throws(LocationError) -> Odometer {
        do {
            return try queue.read { db in try Self.odometer(db) }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// The odometer's reading at `time`, metres: its setting, plus the distances of the
    /// stored trips that start from the setting until `time`, less those that start from
    /// `time` until the setting. A trip that starts at `time` is not yet counted: times are
    /// compared to the half millisecond, the precision they travel at in JSON.
    public func odometer(at time: Date) throws(LocationError) -> Double {
        let time = time.addingTimeInterval(-0.0005)
        do {
            return try queue.read { db in
                let odometer = try Self.odometer(db)
                let setAt = odometer.setAt ?? .distantPast
                let sum = #"SELECT coalesce(sum(distance), 0) FROM trip WHERE start >= ? AND start < ?"#
                let after = try Double.fetchOne(db, sql: sum, arguments: Self.bounds(setAt, time)) ?? 0
                let before = try Double.fetchOne(db, sql: sum, arguments: Self.bounds(time, setAt)) ?? 0
                return odometer.setMetres + after - before
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    /// The reading now: at the start of `openTrip` plus what it has covered, else after every stored trip.
    public func odometerNow(openTrip: Trip?) throws(LocationError) -> Double {
        guard let openTrip else { return try odometer(at: .distantFuture) }
        return try odometer(at: openTrip.start) + openTrip.distance
    }

    /// Stores `odometer` as the setting, replacing any earlier one.
    public func setOdometer(_ odometer: Odometer) throws(LocationError) {
        do {
            try queue.write { db in
                try db.execute(sql: Self.odometerTable)
                try db.execute(
                    sql: "INSERT OR REPLACE INTO odometer (id, setAt, metres) VALUES (1, ?, ?)",
                    arguments: [(odometer.setAt ?? .distantPast).timeIntervalSince1970, odometer.setMetres])
            }
        } catch {
            throw TileDatabase.locationError(error, path: url.path)
        }
    }

    private static func odometer(_ db: Database) throws -> Odometer {
        guard try db.tableExists("odometer"),
            let row = try Row.fetchOne(db, sql: "SELECT setAt, metres FROM odometer WHERE id = 1")
        else { return Odometer() }
        return Odometer(setAt: Date(timeIntervalSince1970: row["setAt"]), setMetres: row["metres"])
    }

    /// `low` and `high` as arguments, empty (`high` = `low`) when `high` is before `low`.
    private static func bounds(_ low: Date, _ high: Date) -> StatementArguments {
        [low.timeIntervalSince1970, max(low, high).timeIntervalSince1970]
    }
}
