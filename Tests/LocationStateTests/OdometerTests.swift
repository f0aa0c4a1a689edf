import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationState
@testable import LocationTimeline

/// The odometer: made from the stored trips and its setting, in a real SQLite file.
@Suite(.timeLimit(.minutes(5)))
struct OdometerTests {
    static let logger = Logger(label: "test")

    /// A trip of `kilometres` starting `start` seconds after the epoch, lasting 10 minutes.
    static func trip(_ start: Double, _ kilometres: Double) -> Trip {
        Trip(
            start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: start + 600),
            distance: kilometres * 1000, maxSpeed: 30, fixes: 60)
    }

    /// Three trips of 2, 3 and 5 km at 1000, 5000 and 9000 s.
    static func store(in directory: borrowing TemporaryDirectory) throws -> TimelineStore {
        let store = try TimelineStore(directory: URL(fileURLWithPath: directory.path), logger: logger)
        try store.record(
            [.tripClosed(trip(1000, 2)), .tripClosed(trip(5000, 3)), .tripClosed(trip(9000, 5))], tracker: nil)
        return store
    }

    static func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    /// Never set, it reads the trips that started before: 0 before the first.
    @Test func withoutASettingItCountsFromZero() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory)
        #expect(try store.odometer(at: Self.at(1000)) == 0)
        #expect(try store.odometer(at: Self.at(5000)) == 2000)
        #expect(try store.odometer(at: Self.at(9000)) == 5000)
        #expect(try store.odometerNow(openTrip: nil) == 10_000)
    }

    /// Set after the trips, the readings before it count back from the setting.
    @Test func aSettingCountsBackAndOn() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory)
        try store.setOdometer(.setting(metres: 100_000, openTrip: nil, lastFix: Self.at(6000), now: Self.at(99_999)))
        #expect(try store.odometer().setAt == Self.at(6000))
        #expect(try store.odometer(at: Self.at(1000)) == 95_000)
        #expect(try store.odometer(at: Self.at(5000)) == 97_000)
        #expect(try store.odometer(at: Self.at(9000)) == 100_000)
        #expect(try store.odometerNow(openTrip: nil) == 105_000)
    }

    /// Set during a trip, the setting counts from the trip's start less what it covered:
    /// the reading now is the one set, and the trip's whole distance counts after it.
    @Test func aSettingDuringATripCountsItWhole() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory)
        let open = Trip(
            start: Self.at(12_000), end: Self.at(12_300), distance: 1500, maxSpeed: 20, fixes: 30, isOpen: true)
        try store.setOdometer(.setting(metres: 50_000, openTrip: open, lastFix: Self.at(12_300), now: Self.at(99_999)))
        #expect(try store.odometerNow(openTrip: open) == 50_000)
        #expect(try store.odometer(at: Self.at(12_000)) == 48_500)
        #expect(try store.odometer(at: Self.at(9000)) == 43_500)
    }

    /// The setting survives reopening the file and a rebuild, which replaces every trip.
    @Test func theSettingSurvivesARestartAndARebuild() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory)
        try store.setOdometer(Odometer(setAt: Self.at(20_000), setMetres: 7000))
        let reopened = try TimelineStore(directory: URL(fileURLWithPath: directory.path), logger: Self.logger)
        #expect(try reopened.odometer() == Odometer(setAt: Self.at(20_000), setMetres: 7000))
        try reopened.replaceAll(with: [.tripClosed(Self.trip(1000, 4))], tracker: MotionTracker())
        #expect(try reopened.odometer(at: Self.at(1000)) == 3000)
        let reader = try TimelineStore.openReadOnly(at: reopened.url)
        #expect(try reader.odometerNow(openTrip: nil) == 7000)
    }

    /// A trip stored a hair before the millisecond its start travels at in JSON is the trip
    /// that starts there: not yet counted at its own start.
    @Test func aTripIsNotCountedAtItsOwnStart() throws {
        let directory = try TemporaryDirectory()
        let store = try TimelineStore(directory: URL(fileURLWithPath: directory.path), logger: Self.logger)
        try store.record([.tripClosed(Self.trip(999.9997, 2))], tracker: nil)
        #expect(try store.odometer(at: Self.at(1000)) == 0)
        #expect(try store.odometer(at: Self.at(1000.001)) == 2000)
    }

    /// A file from before the odometer (no table) reads as never set.
    @Test func aFileWithoutTheTableWasNeverSet() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.store(in: directory)
        try store.queue.write { db in try db.execute(sql: "DROP TABLE odometer") }
        let reader = try TimelineStore.openReadOnly(at: URL(fileURLWithPath: directory.path + "/timeline.sqlite"))
        #expect(try reader.odometer() == Odometer())
        #expect(try reader.odometerNow(openTrip: nil) == 10_000)
    }
}
