import Dispatch
import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationState
@testable import LocationStores

/// A logger that writes only when told to (`flush()`), unless a test sets a batch size or interval.
private func makeLogger(
    _ sink: MemoryTileSink, zooms: [Int] = [17], batchSize: Int = 100_000, flushInterval: Duration = .seconds(3600),
    maxPendingTiles: Int = 100_000, log: Logger = Logger(label: "test")
) -> TileLogger {
    TileLogger(
        configuration: .init(
            zooms: zooms, batchSize: batchSize, flushInterval: flushInterval, maxPendingTiles: maxPendingTiles),
        sink: sink, logger: log)
}

// About 2 km east of the Brandenburg Gate along its parallel (0.0295236° of longitude
// at 52.5163° N); python3 puts the start in column 70406 and the end in 70417 at zoom 17.
private let gate = (latitude: 52.5163, longitude: 13.3777)
private let twoKilometresEast = 13.3777 + 0.0295236

@Test(.timeLimit(.minutes(10))) func aFastSegmentFillsEveryTileInBetween() async throws {
    let sink = MemoryTileSink()
    let logger = makeLogger(sink)
    logger.record(TileFixtures.fix(gate.latitude, gate.longitude, at: 0))
    logger.record(TileFixtures.fix(gate.latitude, twoKilometresEast, at: 25))  // 80 m/s: fast, but plausible
    try await logger.flush()

    let stored = sink.stored
    #expect(Set(stored.keys) == Set((70406...70417).map { Tile(zoom: 17, x: $0, y: 42987)! }))
    #expect(stored.values.allSatisfy { $0.visits == 1 })
    // Sightings are interpolated along the line: in order, inside the segment's time.
    let ordered = stored.values.sorted { $0.tile.x < $1.tile.x }
    #expect(ordered.first?.firstSeen == TileFixtures.time(0))
    #expect(ordered.last?.lastSeen == TileFixtures.time(25))
    for (west, east) in zip(ordered, ordered.dropFirst()) {
        #expect(west.lastSeen == east.firstSeen)
        #expect(west.firstSeen < west.lastSeen)
    }
    #expect(logger.counters.unjoined == 1)
}

@Test(
    .timeLimit(.minutes(5)),
    arguments: [
        (120.0, "a gap longer than a minute"),
        (10.0, "a 200 m/s jump"),
    ])
func fixesAcrossAGapOrAJumpAreNotJoined(seconds: Double, reason: String) async throws {
    let sink = MemoryTileSink()
    let logger = makeLogger(sink)
    logger.record(TileFixtures.fix(gate.latitude, gate.longitude, at: 0))
    logger.record(TileFixtures.fix(gate.latitude, twoKilometresEast, at: seconds))
    try await logger.flush()

    #expect(
        Set(sink.stored.keys) == [Tile(zoom: 17, x: 70406, y: 42987)!, Tile(zoom: 17, x: 70417, y: 42987)!], "\(reason)"
    )
    #expect(logger.counters.unjoined == 2)
}

/// `nil` between two fixes (a fix loss, a new GPX track segment) is an interruption: the
/// fixes on either side are not joined, however close in time and space.
@Test(.timeLimit(.minutes(10))) func fixesAcrossANoFixAreNotJoined() async throws {
    let sink = MemoryTileSink()
    let logger = makeLogger(sink)
    logger.record(TileFixtures.fix(gate.latitude, gate.longitude, at: 0))
    logger.record(nil)
    logger.record(TileFixtures.fix(gate.latitude, twoKilometresEast, at: 25))
    logger.record(TileFixtures.fix(gate.latitude, twoKilometresEast + 0.0001, at: 26))
    try await logger.flush()

    #expect(
        Set(sink.stored.keys) == [Tile(zoom: 17, x: 70406, y: 42987)!, Tile(zoom: 17, x: 70417, y: 42987)!])
    #expect(logger.counters.unjoined == 2)
    #expect(logger.counters.fixes == 3)
}

@Test(.timeLimit(.minutes(10))) func fixesWithoutTimeAreNotJoined() async throws {
    let sink = MemoryTileSink()
    let logger = makeLogger(sink)
    var start = TileFixtures.fix(gate.latitude, gate.longitude, at: 0)
    start.time = nil
    logger.record(start)
    logger.record(TileFixtures.fix(gate.latitude, twoKilometresEast, at: 25))
    try await logger.flush()
    #expect(sink.stored.count == 2)
}

@Test(.timeLimit(.minutes(10))) func inaccurateFixesAndFixesWithoutPositionAreSkipped() async throws {
    let sink = MemoryTileSink()
    let logger = makeLogger(sink)
    logger.record(TileFixtures.fix(gate.latitude, gate.longitude, at: 0, eph: 51))  // above the 50 m default
    logger.record(Location(time: TileFixtures.time(1), mode: .noFix, lat: 1, lon: 1, source: .replay))
    logger.record(Location(time: TileFixtures.time(2), mode: .threeD, lat: 1, source: .replay))
    logger.record(nil)
    logger.record(TileFixtures.fix(gate.latitude, twoKilometresEast, at: 3, eph: 50))
    try await logger.flush()

    #expect(Set(sink.stored.keys) == [Tile(zoom: 17, x: 70417, y: 42987)!])
    #expect(logger.counters.skipped == 4)
    #expect(logger.counters.fixes == 1)
}

@Test(.timeLimit(.minutes(10))) func aVisitIsAnEntryNotAStay() async throws {
    let sink = MemoryTileSink()
    let logger = makeLogger(sink, zooms: [14])
    // Tile 14/8800/5373 spans 13.359375°...13.38134765625° E; its eastern neighbour is 8801.
    let inside = 13.3700
    let east = 13.3850
    logger.record(TileFixtures.fix(gate.latitude, inside, at: 0))  // enters 8800: 1
    logger.record(TileFixtures.fix(gate.latitude, inside + 0.001, at: 10))  // stays
    logger.record(TileFixtures.fix(gate.latitude, east, at: 30))  // enters 8801: 1
    logger.record(TileFixtures.fix(gate.latitude, inside, at: 60))  // enters 8800 again: 2
    logger.record(TileFixtures.fix(gate.latitude, inside, at: 300))  // a gap, still inside: no new visit
    try await logger.flush()

    let stored = sink.stored
    let home = try #require(stored[Tile(zoom: 14, x: 8800, y: 5373)!])
    #expect(home.visits == 2)
    #expect(home.firstSeen == TileFixtures.time(0))
    #expect(home.lastSeen == TileFixtures.time(300))
    #expect(stored[Tile(zoom: 14, x: 8801, y: 5373)!]?.visits == 1)
}

@Test(.timeLimit(.minutes(10))) func everyConfiguredZoomIsLogged() async throws {
    let sink = MemoryTileSink()
    let logger = makeLogger(sink, zooms: [0, 14, 17, 19])
    logger.record(TileFixtures.fix(gate.latitude, gate.longitude, at: 0))
    try await logger.flush()
    #expect(
        Set(sink.stored.keys) == [
            Tile(zoom: 0, x: 0, y: 0)!, Tile(zoom: 14, x: 8800, y: 5373)!, Tile(zoom: 17, x: 70406, y: 42987)!,
            Tile(zoom: 19, x: 281626, y: 171951)!,
        ])
}

@Test(.timeLimit(.minutes(10))) func aFullBatchIsWrittenWithoutFlush() async throws {
    let sink = MemoryTileSink()
    let logger = makeLogger(sink, batchSize: 3)
    logger.record(TileFixtures.fix(gate.latitude, 13.3700, at: 0))
    logger.record(TileFixtures.fix(gate.latitude, 13.3700, at: 1))  // the same tile: still one pending
    logger.record(TileFixtures.fix(gate.latitude, 13.3800, at: 60 * 2))  // not joined: a second tile
    #expect(sink.writes.events.isEmpty)
    logger.record(TileFixtures.fix(gate.latitude, 13.3900, at: 60 * 4))  // a third: the batch is full
    await sink.writes.waitFor(count: 1)
    // One write with all three tiles: nothing was written before the batch was full.
    #expect(sink.writes.events.first?.count == 3)
}

@Test(.timeLimit(.minutes(10))) func pendingTilesAreWrittenAfterTheFlushInterval() async throws {
    let sink = MemoryTileSink()
    let logger = makeLogger(sink, flushInterval: .milliseconds(20))
    logger.record(TileFixtures.fix(gate.latitude, gate.longitude, at: 0))
    await sink.writes.waitFor(count: 1)
    #expect(sink.writes.events.first?.map(\.tile) == [Tile(zoom: 17, x: 70406, y: 42987)!])
}

@Test(.timeLimit(.minutes(10))) func aFailingSinkIsLoggedOnceAndRetriedWithoutLoss() async throws {
    let sink = MemoryTileSink()
    let messages = LogRecorder()
    let logger = makeLogger(sink, log: messages.logger)
    sink.fail(with: .cannotWrite(path: "/data/tiles.sqlite", reason: "the disk or the database is full"))

    logger.record(TileFixtures.fix(gate.latitude, gate.longitude, at: 0))
    await #expect(throws: LocationError.self) { try await logger.flush() }
    // The logger keeps going; this fix is in the same tile.
    logger.record(TileFixtures.fix(gate.latitude, gate.longitude + 0.0001, at: 1))
    await #expect(throws: LocationError.self) { try await logger.flush() }
    let errors = messages.events.filter { $0.0 == .error }
    #expect(errors.count == 1)
    #expect(errors.first?.1.contains("disk or the database is full") == true)

    sink.fail(with: nil)
    try await logger.flush()
    let home = try #require(sink.stored[Tile(zoom: 17, x: 70406, y: 42987)!])
    #expect(home.visits == 1)
    #expect(home.firstSeen == TileFixtures.time(0))
    #expect(home.lastSeen == TileFixtures.time(1))
    #expect(messages.events.contains { $0.0 == .notice && $0.1.contains("writing again") })
    #expect(logger.counters.failedWrites == 2)
}

@Test(.timeLimit(.minutes(10))) func pendingTilesBeyondTheLimitAreDroppedAndLogged() async throws {
    let sink = MemoryTileSink()
    let messages = LogRecorder()
    let logger = makeLogger(sink, maxPendingTiles: 5, log: messages.logger)
    sink.fail(with: .databaseLocked(path: "/data/tiles.sqlite"))
    logger.record(TileFixtures.fix(gate.latitude, gate.longitude, at: 0))
    logger.record(TileFixtures.fix(gate.latitude, twoKilometresEast, at: 25))  // 12 tiles
    await #expect(throws: LocationError.self) { try await logger.flush() }
    #expect(logger.counters.dropped == 12)
    #expect(messages.events.contains { $0.1.contains("dropped 12 tiles") })

    sink.fail(with: nil)
    logger.record(TileFixtures.fix(gate.latitude, twoKilometresEast, at: 26))
    try await logger.flush()
    #expect(Set(sink.stored.keys) == [Tile(zoom: 17, x: 70417, y: 42987)!])
}

// Attached to the device location as a listener.
@Test(.timeLimit(.minutes(10))) func aTileLoggerAttachedToTheDeviceLocationLogsEveryChange() async throws {
    let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
    let sink = MemoryTileSink()
    let logger = TileLogger(configuration: .init(zooms: [17], flushInterval: .seconds(3600)), sink: sink)
    let queue = DispatchQueue(label: "test.tiles")
    deviceLocation.addListener(logger, on: queue, policy: .all)

    // The fast segment of the logger tests, then the fix is lost.
    deviceLocation ~> TileFixtures.fix(52.5163, 13.3777, at: 0)
    deviceLocation ~> TileFixtures.fix(52.5163, 13.3777 + 0.0295236, at: 25)
    deviceLocation ~> nil
    try await drain(queue)
    try await logger.close()

    #expect(Set(sink.stored.keys) == Set((70406...70417).map { Tile(zoom: 17, x: $0, y: 42987)! }))
    #expect(logger.counters.fixes == 2)
    #expect(logger.counters.skipped == 1)
}

@Test(.timeLimit(.minutes(10))) func aReleasedTileLoggerStopsListening() async throws {
    let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
    let sink = MemoryTileSink()
    let queue = DispatchQueue(label: "test.tiles")
    do {
        let logger = TileLogger(configuration: .init(zooms: [17], flushInterval: .seconds(3600)), sink: sink)
        deviceLocation.addListener(logger, on: queue)
        deviceLocation ~> TileFixtures.fix(52.5163, 13.3777, at: 0)
        try await drain(queue)
        try await logger.close()
    }
    deviceLocation ~> TileFixtures.fix(52.5163, 13.3877, at: 1)
    try await drain(queue)
    #expect(sink.writes.events.count == 1)
    #expect(Set(sink.stored.keys) == [Tile(zoom: 17, x: 70406, y: 42987)!])
}

@Test(.timeLimit(.minutes(10))) func theAntimeridianSampleTrackLogsOnlyTheTilesAlongIt() async throws {
    // 200 s east at 10 m/s near Fiji (16.8° S), from 179.991° E across 180°: about 2 km,
    // some eight tiles of 290 m at zoom 17 on either side, none in between round the world.
    let sink = MemoryTileSink()
    let logger = TileLogger(configuration: .init(zooms: [17], flushInterval: .seconds(3600)), sink: sink)
    let (events, _) = try await replay(Repository.sampleTrack("antimeridian.nmea"))
    for case .fix(let location) in events { logger.record(location) }
    try await logger.close()

    let tiles = sink.stored.keys
    // Columns: 131068 for 179.991° E (python3, OSM formula) up to the last, then from 0.
    let west = Set(tiles.filter { $0.x >= 65536 }.map(\.x)).sorted()
    let east = Set(tiles.filter { $0.x < 65536 }.map(\.x)).sorted()
    #expect(west == Array(131068...131071))
    #expect(east == Array(0...(east.last ?? 0)) && (3...4).contains(east.last ?? 0))
    #expect(Set(tiles.map(\.y)).count <= 2)
    #expect(logger.counters.unjoined == 1)
}
