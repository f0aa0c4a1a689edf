import Dispatch
import Foundation
import Testing

@testable import LocationState

// `drain(_:)` (StateTestSupport) awaits what is queued on a listener's queue, with a time limit.

@Test(.timeLimit(.minutes(1))) func aTileLoggerAttachedToTheDeviceLocationLogsEveryChange() async throws {
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

@Test(.timeLimit(.minutes(1))) func aReleasedTileLoggerStopsListening() async throws {
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

@Test(.timeLimit(.minutes(1))) func theAntimeridianSampleTrackLogsOnlyTheTilesAlongIt() async throws {
    // 200 s east at 10 m/s near Fiji (16.8° S), from 179.991° E across 180°: about 2 km,
    // some eight tiles of 290 m at zoom 17 on either side, none in between round the world.
    let sink = MemoryTileSink()
    let logger = TileLogger(configuration: .init(zooms: [17], flushInterval: .seconds(3600)), sink: sink)
    let (events, _) = try await replay(sampleTrack("antimeridian.nmea"))
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
