import Foundation
import GRDB
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationStores

private func record(_ zoom: Int, _ x: Int, _ y: Int, first: Double, last: Double, visits: Int) -> TileRecord {
    TileRecord(
        tile: Tile(zoom: zoom, x: x, y: y)!, firstSeen: TileFixtures.time(first), lastSeen: TileFixtures.time(last),
        visits: visits)
}

@Test(.timeLimit(.minutes(10))) func addedRecordsMergeAndSurviveReopening() throws {
    let url = try TileFixtures.directory().appendingPathComponent(TileDatabase.fileName)
    do {
        let database = try TileDatabase.open(at: url)
        try database.add([
            record(14, 1, 2, first: 10, last: 20, visits: 1), record(17, 5, 6, first: 10, last: 10, visits: 1),
        ])
        try database.add([record(14, 1, 2, first: 5, last: 15, visits: 2)])
    }
    let reopened = try TileDatabase.openReadOnly(at: url)
    #expect(try reopened.tiles(zoom: 14) == [record(14, 1, 2, first: 5, last: 20, visits: 3)])
    #expect(try reopened.tiles().map(\.tile.description) == ["14/1/2", "17/5/6"])
    #expect(try reopened.isIntact())
}

@Test(.timeLimit(.minutes(10))) func theDatabaseIsWALAndPrivate() throws {
    let directory = try TileFixtures.directory().appendingPathComponent("state")
    let url = directory.appendingPathComponent(TileDatabase.fileName)
    _ = try TileDatabase.open(at: url)
    let journal = try DatabaseQueue(path: url.path).read { try String.fetchOne($0, sql: "PRAGMA journal_mode") }
    #expect(journal == "wal")
    let fileMode = try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int
    let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
    #expect(fileMode == 0o600)
    #expect(directoryMode == 0o700)
}

@Test(.timeLimit(.minutes(10))) func summariesRangeAndMaxSquare() throws {
    let url = try TileFixtures.directory().appendingPathComponent(TileDatabase.fileName)
    let database = try TileDatabase.open(at: url)
    // At zoom 14: a 2 x 2 block at (10...11, 20...21) and a lone tile at (15, 18).
    try database.add([
        record(14, 10, 20, first: 100, last: 110, visits: 1), record(14, 11, 20, first: 120, last: 130, visits: 2),
        record(14, 10, 21, first: 140, last: 150, visits: 1), record(14, 11, 21, first: 160, last: 170, visits: 1),
        record(14, 15, 18, first: 50, last: 60, visits: 1), record(17, 80, 160, first: 200, last: 300, visits: 4),
    ])
    #expect(
        try database.summaries() == [
            TileZoomSummary(
                zoom: 14, tiles: 5, visits: 6, firstSeen: TileFixtures.time(50), lastSeen: TileFixtures.time(170)),
            TileZoomSummary(
                zoom: 17, tiles: 1, visits: 4, firstSeen: TileFixtures.time(200), lastSeen: TileFixtures.time(300)),
        ])
    #expect(try database.range(zoom: 14) == TileRange(zoom: 14, minX: 10, maxX: 15, minY: 18, maxY: 21))
    #expect(try database.range(zoom: 3) == nil)
    #expect(try database.maxSquare(zoom: 14) == TileSquare(origin: Tile(zoom: 14, x: 10, y: 20)!, size: 2))
    #expect(try database.maxSquare(zoom: 17)?.size == 1)
    #expect(try database.tiles(zoom: 16).isEmpty)
}

@Test(.timeLimit(.minutes(10))) func rangeBoundsAreTheOuterTileEdges() {
    let range = TileRange(zoom: 14, minX: 8800, maxX: 8801, minY: 5373, maxY: 5374)
    let bounds = range.bounds
    #expect(bounds.maxLat == Tile(zoom: 14, x: 8800, y: 5373)!.bounds.maxLat)
    #expect(bounds.minLat == Tile(zoom: 14, x: 8801, y: 5374)!.bounds.minLat)
    #expect(bounds.minLon == 13.359375)
    #expect(bounds.maxLon == Tile(zoom: 14, x: 8801, y: 5374)!.bounds.maxLon)
}

@Test(.timeLimit(.minutes(10))) func countsSurviveARestartOfTheLogger() async throws {
    let url = try TileFixtures.directory().appendingPathComponent(TileDatabase.fileName)
    let configuration = TileLogger.Configuration(zooms: [17])
    let first = TileLogger(configuration: configuration, sink: TileDatabaseSink(url: url))
    first.record(TileFixtures.fix(52.5163, 13.3777, at: 0))
    first.record(TileFixtures.fix(52.5163, 13.3777, at: 5))
    try await first.close()

    // A new daemon: the first fix in the same tile is a new entry.
    let second = TileLogger(configuration: configuration, sink: TileDatabaseSink(url: url))
    second.record(TileFixtures.fix(52.5163, 13.3777, at: 1000))
    try await second.close()

    let stored = try TileDatabase.openReadOnly(at: url).tiles()
    #expect(stored == [record(17, 70406, 42987, first: 0, last: 1000, visits: 2)])
}

@Test(.timeLimit(.minutes(10))) func aReaderSeesCommittedTilesWhileTheWriterIsOpen() throws {
    let url = try TileFixtures.directory().appendingPathComponent(TileDatabase.fileName)
    let writer = try TileDatabase.open(at: url)
    try writer.add([record(14, 1, 1, first: 0, last: 0, visits: 1)])
    let reader = try TileDatabase.openReadOnly(at: url)
    try writer.add([record(14, 1, 2, first: 0, last: 0, visits: 1)])
    #expect(try reader.tiles().count == 2)
}

@Test(.timeLimit(.minutes(10))) func noDatabaseIsAClearError() throws {
    let url = try TileFixtures.directory().appendingPathComponent(TileDatabase.fileName)
    #expect(throws: LocationError.noTileDatabase(path: url.path)) { try TileDatabase.openReadOnly(at: url) }
    #expect(!FileManager.default.fileExists(atPath: url.path), "reading must not create the database")
}

@Test(
    .timeLimit(.minutes(5)),
    arguments: [
        Data(repeating: 0x5A, count: 8192),
        Data("SQLite format 3\0".utf8) + Data(repeating: 0xFF, count: 4080),
    ])
func aCorruptDatabaseIsNeverOverwritten(garbage: Data) async throws {
    let url = try TileFixtures.directory().appendingPathComponent(TileDatabase.fileName)
    try garbage.write(to: url)

    #expect {
        try TileDatabase.openReadOnly(at: url)
    } throws: { error in
        (error as? LocationError)?.message.contains("not a usable database") == true
    }
    #expect(throws: LocationError.self) { try TileDatabase.open(at: url) }

    let sink = TileDatabaseSink(url: url)
    let logger = TileLogger(configuration: .init(zooms: [17]), sink: sink)
    logger.record(TileFixtures.fix(52.5163, 13.3777, at: 0))
    await #expect(throws: LocationError.self) { try await logger.flush() }
    logger.record(TileFixtures.fix(52.5163, 13.3778, at: 1))
    await #expect(throws: LocationError.self) { try await logger.flush() }
    #expect(logger.counters.fixes == 2)
    #expect(try Data(contentsOf: url) == garbage)
}

@Test(.timeLimit(.minutes(10))) func aLockedDatabaseIsRetriedAfterTheLockGoes() async throws {
    let url = try TileFixtures.directory().appendingPathComponent(TileDatabase.fileName)
    try TileDatabase.open(at: url).add([record(17, 70406, 42987, first: -100, last: -100, visits: 1)])

    // Another process holds the write lock.
    var configuration = Configuration()
    configuration.allowsUnsafeTransactions = true
    let other = try DatabaseQueue(path: url.path, configuration: configuration)
    try await other.writeWithoutTransaction { try $0.execute(sql: "BEGIN EXCLUSIVE") }

    let logger = TileLogger(
        configuration: .init(zooms: [17]), sink: TileDatabaseSink(url: url, busyTimeout: .milliseconds(50)))
    logger.record(TileFixtures.fix(52.5163, 13.3777, at: 0))
    await #expect(throws: LocationError.databaseLocked(path: url.path)) { try await logger.flush() }

    try await other.writeWithoutTransaction { try $0.execute(sql: "COMMIT") }
    try await logger.flush()
    let stored = try TileDatabase.openReadOnly(at: url).tiles()
    #expect(stored == [record(17, 70406, 42987, first: -100, last: 0, visits: 2)])
}

@Test(.timeLimit(.minutes(10))) func aFullDiskLosesNoStoredTile() async throws {
    let url = try TileFixtures.directory().appendingPathComponent(TileDatabase.fileName)
    let before = [record(17, 70406, 42987, first: -100, last: -100, visits: 1)]
    try TileDatabase.open(at: url).add(before)
    let pages = try await DatabaseQueue(path: url.path).read { try Int.fetchOne($0, sql: "PRAGMA page_count") } ?? 0

    // The database may not grow by a single page, as on a full disk.
    let sink = TileDatabaseSink(url: url, busyTimeout: .seconds(1), maxPageCount: pages)
    let logger = TileLogger(configuration: .init(zooms: [19]), sink: sink)
    // A long line at zoom 19: thousands of new tiles, more than fit in the pages left.
    logger.record(TileFixtures.fix(52.5163, 13.3777, at: 0))
    logger.record(TileFixtures.fix(52.5163, 13.5, at: 59))
    await #expect {
        try await logger.flush()
    } throws: { error in
        (error as? LocationError)?.message.contains("full") == true
    }
    let database = try TileDatabase.openReadOnly(at: url)
    #expect(try database.tiles() == before)
    #expect(try database.isIntact())
}

@Test(.timeLimit(.minutes(10))) func aDataDirectoryThatCannotBeCreatedIsAnErrorNotACrash() async throws {
    // Below a regular file: no one, root included, can create that directory.
    let file = try TileFixtures.directory().appendingPathComponent("a-file")
    try Data("x".utf8).write(to: file)
    let url = file.appendingPathComponent("locationd").appendingPathComponent(TileDatabase.fileName)

    let logger = TileLogger(configuration: .init(zooms: [17]), sink: TileDatabaseSink(url: url))
    logger.record(TileFixtures.fix(52.5163, 13.3777, at: 0))
    await #expect {
        try await logger.flush()
    } throws: { error in
        let error = error as? LocationError
        return error?.kind == .cannotWrite && error?.message.contains("Not a directory") == true
    }
    logger.record(TileFixtures.fix(52.5163, 13.3778, at: 1))
    #expect(logger.counters.fixes == 2)
}

@Test(.timeLimit(.minutes(10))) func theDefaultDataDirectoryFollowsXDGAndRoot() {
    #expect(
        DataDirectory.defaultURL(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"], isRoot: true).path
            == "/var/lib/locationd")
    #expect(
        DataDirectory.defaultURL(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"], isRoot: false).path
            == "/s/locationd")
    // A relative XDG_STATE_HOME is invalid by the XDG rules and ignored.
    #expect(
        DataDirectory.defaultURL(environment: ["XDG_STATE_HOME": "s", "HOME": "/h"], isRoot: false).path
            == "/h/.local/state/locationd")
    #expect(DataDirectory.defaultURL(environment: ["HOME": "/h"], isRoot: false).path == "/h/.local/state/locationd")
}
