import Dispatch
import Foundation
import Testing

@testable import LocationState

// `drain(_:)` (StateTestSupport) awaits what is queued on a listener's queue, with a time limit.

@Test func aTileLoggerAttachedToTheDeviceLocationLogsEveryChange() async throws {
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

@Test func aReleasedTileLoggerStopsListening() async throws {
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
