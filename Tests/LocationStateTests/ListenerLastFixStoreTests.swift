import Dispatch
import Foundation
import Logging
import Testing

@testable import LocationState

/// An in-memory file system that reports every save of `lastFix.json`.
private func countingFileSystem(_ saves: TileEventLog<Data>) -> FileSystem {
    var fileSystem = FileSystem.inMemory()
    let save = fileSystem.save
    fileSystem.save = { data, path in
        try save(data, path)
        if path.hasSuffix("/\(LastFixStore.key).json") { saves.append(data) }
    }
    return fileSystem
}

/// The clock of these tests: `TileFixtures.time(0)`, 2027-01-15T08:00:00Z.
private let testNow: @Sendable () -> Date = { TileFixtures.time(0) }

@Test(.timeLimit(.minutes(1))) func theLastFixSurvivesARestartAsRestored() throws {
    let directory = try TileFixtures.directory().path
    let fix = TileFixtures.fix(52.5, 13.4, at: -10)
    do {
        let store = try LastFixStore(directory: directory, now: testNow)
        #expect(store.lastFix == nil)
        store.record(fix)
        #expect(store.lastFix == fix)
        try store.flush()
    }
    let mode = try FileManager.default.attributesOfItem(atPath: directory + "/lastFix.json")[.posixPermissions] as? Int
    #expect(mode == 0o600)

    let reopened = try LastFixStore(directory: directory, now: testNow)
    var restored = fix
    restored.source = .restored
    #expect(reopened.lastFix == restored)

    // A newer fix replaces it, with its own source.
    let newer = TileFixtures.fix(52.6, 13.5, at: -5)
    reopened.record(newer)
    #expect(reopened.lastFix == newer)
}

@Test(.timeLimit(.minutes(1))) func writesAreThrottledAndCoalesced() async throws {
    #expect(LastFixStore.Configuration().writeInterval == .seconds(5))
    let saves = TileEventLog<Data>()
    let store = try LastFixStore(
        directory: "/data", configuration: .init(writeInterval: .seconds(3600)), fileSystem: countingFileSystem(saves),
        now: testNow)
    store.record(TileFixtures.fix(52.5, 13.4, at: -100))
    await saves.waitFor(count: 1)
    for second in 1...50 { store.record(TileFixtures.fix(52.5, 13.4, at: -100 + Double(second))) }
    // Within the interval nothing more is written, until the flush writes the newest fix once.
    try store.flush()
    #expect(saves.events.count == 2)
    let stored = try JSONDecoder().decode(Location.self, from: try #require(saves.events.last))
    #expect(stored.time == TileFixtures.time(-50))
    try store.flush()
    #expect(saves.events.count == 2, "nothing new to write")
}

@Test(.timeLimit(.minutes(1)), arguments: [
    (-20.0, LastFixStore.Rejection.older),  // older than the stored fix at -10
    (3600.0, .future),  // an hour ahead of the clock
    (61.0, .future),  // just beyond the 60 s tolerance
])
func olderAndFutureFixesAreIgnoredAndLogged(seconds: Double, reason: LastFixStore.Rejection) throws {
    let messages = LogRecorder()
    let store = try LastFixStore(
        directory: "/data", fileSystem: .inMemory(), logger: messages.logger, now: testNow)
    let kept = TileFixtures.fix(52.5, 13.4, at: -10)
    store.record(kept)
    store.record(TileFixtures.fix(1, 1, at: seconds))
    store.record(TileFixtures.fix(2, 2, at: seconds))
    #expect(store.lastFix == kept)
    #expect(store.rejected == [reason: 2])
    // The first of a run is a notice, the rest debug.
    let notices = messages.events.filter { $0.0 == .notice }
    #expect(notices.count == 1)
    #expect(notices.first?.1.contains(reason == .older ? "older" : "ahead of the system clock") == true)
}

@Test(.timeLimit(.minutes(1))) func aFixWithinTheFutureToleranceIsTaken() throws {
    let store = try LastFixStore(directory: "/data", fileSystem: .inMemory(), now: testNow)
    let ahead = TileFixtures.fix(52.5, 13.4, at: 59)
    store.record(ahead)
    #expect(store.lastFix == ahead)
}

@Test(.timeLimit(.minutes(1))) func fixesWithoutTimeOrPositionLeaveTheLastFix() throws {
    let store = try LastFixStore(directory: "/data", fileSystem: .inMemory(), now: testNow)
    let kept = TileFixtures.fix(52.5, 13.4, at: -10)
    store.record(kept)
    var untimed = TileFixtures.fix(1, 1, at: 0)
    untimed.time = nil
    store.record(untimed)
    store.record(nil)
    store.record(Location(time: TileFixtures.time(-1), mode: .noFix, source: .gpsd))
    store.record(TileFixtures.fix(52.5, 13.4, at: -10))  // the same fix again
    #expect(store.lastFix == kept)
    #expect(store.rejected == [.untimed: 1])
}

@Test(.timeLimit(.minutes(1))) func aCorruptStoredFixIsMovedAsideAndTheStoreStartsEmpty() throws {
    let directory = try TileFixtures.directory()
    let file = directory.appendingPathComponent("lastFix.json")
    try Data("{\"class\":\"TPV\",\"lat\":".utf8).write(to: file)
    let store = try LastFixStore(directory: directory.path, now: testNow)
    #expect(store.lastFix == nil)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    #expect(names.contains { $0.hasPrefix("lastFix.corrupt-") })
    store.record(TileFixtures.fix(52.5, 13.4, at: -1))
    try store.flush()
    #expect(try LastFixStore(directory: directory.path, now: testNow).lastFix?.lat == 52.5)
}

@Test(.timeLimit(.minutes(1))) func aLastFixStoreAttachedToTheDeviceLocationKeepsTheNewestFix() async throws {
    let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
    let store = try LastFixStore(directory: "/data", fileSystem: .inMemory(), now: testNow)
    let queue = DispatchQueue(label: "test.lastfix")
    deviceLocation.addListener(store, on: queue)
    deviceLocation ~> TileFixtures.fix(52.5, 13.4, at: -3)
    deviceLocation ~> TileFixtures.fix(52.6, 13.4, at: -2)
    deviceLocation ~> nil
    try await drain(queue)
    #expect(store.lastFix?.lat == 52.6)
}
