import Foundation
import GRDB
import LocationTestSupport
import Logging
import Testing

@testable import LocationRegions
@testable import LocationState
@testable import LocationTimeline

/// Stays named as they close, stored with their names, and the names of the places file
/// and the user's regions.
@Suite(.timeLimit(.minutes(5)))
struct StayNamesTests {
    typealias T = MotionTrack

    /// A user's region holds the point: its name wins over GeoNames'; outside it, the nearest place.
    @Test func aRegionsNameWins() throws {
        let places = try PlaceNames(path: PlaceNamesTests.path)
        let home = Region(
            id: RegionID("home"), name: "Home",
            geometry: .circle(centerLat: 47.4111, centerLon: 8.5442, radius: 100))
        let regions = try RegionSet([home])
        let names = LocationNames(regions: { regions }, places: { places })
        #expect(names.name(lat: 47.4111, lon: 8.5442) == "Home")
        #expect(names.name(lat: 47.4150, lon: 8.5442) == places.nearest(lat: 47.4150, lon: 8.5442))
        #expect(LocationNames().name(lat: 47.4, lon: 8.5) == nil)
    }

    /// A file that is not a places file, cut short or missing is one error, never a crash.
    @Test func aBadPlacesFileIsRefused() throws {
        let directory = try TemporaryDirectory()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: PlaceNamesTests.path))
        for (name, data) in [
            ("short", bytes.prefix(300_000)), ("garbage", Data(repeating: 0x41, count: 400_000)),
            ("empty", Data()),
        ] {
            let path = directory.path + "/" + name
            try data.write(to: URL(fileURLWithPath: path))
            #expect(throws: LocationError.self) { try PlaceNames(path: path) }
        }
        #expect(throws: LocationError.self) { try PlaceNames(path: directory.path + "/missing") }
        #expect(throws: LocationError.self) { try PlaceNames(path: directory.path) }
    }

    /// The recorder names each stay as it closes and each trip by the stays it left and
    /// reached; the names are stored and read back.
    @Test func staysAreNamedAndStoredAsTheyClose() async throws {
        let directory = try TemporaryDirectory()
        let logger = Logger(label: "test")
        let store = try TimelineStore(directory: URL(fileURLWithPath: directory.path), logger: logger)
        let naming: StayNaming = { latitude, _ in latitude > T.origin.latitude + 0.001 ? "North" : "South" }
        let recorder = TimelineRecorder(
            configuration: MotionConfiguration(), store: store, logger: logger, naming: naming)
        let closed = Locked<[TimelineEvent]>([])
        let subscription = recorder.events.observe { change in
            if let event = change.new { closed.withLock { $0.append(event) } }
        }
        var fixes = MotionTrackerTests.still(0, 400)
        fixes += (1...30).map { T.fix(400 + Double($0), north: 20 * Double($0)) }
        fixes += MotionTrackerTests.still(440, 800, north: 600)
        fixes += (1...30).map { T.fix(800 + Double($0), north: 600 - 20 * Double($0)) }
        fixes += MotionTrackerTests.still(840, 1200)
        for fix in fixes { recorder.ingest(fix) }
        // The events reach their observer on its queue, after `ingest` returned.
        let trips = try await waitUntil(seconds: 60, "the two trips observed") {
            let trips = closed.withLock { $0 }.compactMap { if case .tripClosed(let trip) = $0 { trip } else { nil } }
            return trips.count >= 2 ? trips : nil
        }
        withExtendedLifetime(subscription) {}
        #expect(trips.map(\.fromName) == ["South", "North"], "\(trips)")
        #expect(trips.map(\.toName) == ["North", "South"], "\(trips)")
        let reader = try TimelineStore.openReadOnly(at: store.url)
        let stays = try reader.entries(from: T.time(-10), to: T.time(2000)).compactMap {
            if case .stay(let stay) = $0, !stay.isOpen { stay } else { nil }
        }
        #expect(stays.prefix(2).map(\.name) == ["South", "North"], "\(stays)")
        #expect(stays.first?.jsonString.contains(#""name":"South""#) == true)
    }

    /// A timeline from before names gets the column when opened for writing; read only, it
    /// is read as it is, its stays without names.
    @Test func anOlderTimelineGetsTheColumn() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/timeline.sqlite"
        let old = try DatabaseQueue(path: path)
        try old.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE stay (start REAL PRIMARY KEY, "end" REAL NOT NULL, latitude REAL NOT NULL,
                        longitude REAL NOT NULL, radius REAL NOT NULL, fixes INTEGER NOT NULL);
                    CREATE TABLE trip (start REAL PRIMARY KEY, "end" REAL NOT NULL, fromStay REAL, toStay REAL,
                        distance REAL NOT NULL, maxSpeed REAL NOT NULL, fixes INTEGER NOT NULL);
                    CREATE TABLE tracker (id INTEGER PRIMARY KEY CHECK (id = 1), state BLOB NOT NULL);
                    INSERT INTO stay VALUES (1000, 2000, 47.37, 8.54, 5, 100);
                    """)
        }
        try old.close()
        let reader = try TimelineStore.openReadOnly(at: URL(fileURLWithPath: path))
        #expect(try reader.entries(from: .distantPast, to: .distantFuture).count == 1)
        let store = try TimelineStore(directory: URL(fileURLWithPath: directory.path), logger: Logger(label: "test"))
        let stay = Stay(
            start: Date(timeIntervalSince1970: 3000), end: Date(timeIntervalSince1970: 4000), latitude: 47.37,
            longitude: 8.54, radius: 5, fixes: 100, name: "Home")
        try store.record([.stayClosed(stay)], tracker: nil)
        let names = try store.entries(from: .distantPast, to: .distantFuture).map { entry -> String? in
            if case .stay(let stay) = entry { stay.name } else { nil }
        }
        #expect(names == [nil, "Home"])
    }
}
