import Dispatch
import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationState
@testable import LocationStores

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

@Test(.timeLimit(.minutes(10))) func theLastFixSurvivesARestartAsRestored() throws {
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

@Test(.timeLimit(.minutes(10))) func writesAreThrottledAndCoalesced() async throws {
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

@Test(
    .timeLimit(.minutes(5)),
    arguments: [
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

@Test(.timeLimit(.minutes(10))) func aFixWithinTheFutureToleranceIsTaken() throws {
    let store = try LastFixStore(directory: "/data", fileSystem: .inMemory(), now: testNow)
    let ahead = TileFixtures.fix(52.5, 13.4, at: 59)
    store.record(ahead)
    #expect(store.lastFix == ahead)
}

@Test(.timeLimit(.minutes(10))) func fixesWithoutTimeOrPositionLeaveTheLastFix() throws {
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

@Test(.timeLimit(.minutes(10))) func aCorruptStoredFixIsMovedAsideAndTheStoreStartsEmpty() throws {
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

@Test(.timeLimit(.minutes(10))) func aLastFixStoreAttachedToTheDeviceLocationKeepsTheNewestFix() async throws {
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

@Suite(.timeLimit(.minutes(10))) struct RestoredLastFixTests {
    private static let good =
        #"{"class":"TPV","mode":3,"time":"2026-11-20T10:00:00.000Z","lat":52.5,"lon":13.4,"source":"gpsd"}"#

    @Test(arguments: [
        "{}", #"{"class":"TPV","mode":3,"time":"2026-11-20T10:00:00.000Z","lat":999,"lon":13.4}"#,
        #"{"class":"TPV","mode":3,"time":"2026-11-20T10:00:00.000Z","lat":52.5,"lon":-181}"#,
        #"{"class":"TPV","mode":1,"time":"2026-11-20T10:00:00.000Z","lat":52.5,"lon":13.4}"#,
        #"{"class":"TPV","mode":3,"lat":52.5,"lon":13.4}"#,
        #"{"class":"TPV","mode":3,"time":"2026-11-20T10:00:00.000Z","lat":52.5,"lon":13.4,"eph":-4}"#,
    ])
    func anInvalidStoredFixIsMovedAsideNotRestored(_ json: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/lastFix.json"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(json.utf8)))
            let log = LogRecorder()
            let store = try LastFixStore(directory: directory, logger: log.logger)
            #expect(store.lastFix == nil)
            #expect(!FileManager.default.fileExists(atPath: path))
            let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0.hasPrefix("lastFix.corrupt-")
            }
            try #require(aside.count == 1)
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + aside[0])) == Data(json.utf8))
        }
    }

    @Test func aStoredFileLargerThan64KiBIsMovedAsideUnread() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/lastFix.json"
            let padded = Self.good.dropLast() + #","device":""# + String(repeating: "x", count: 70_000) + #""}"#
            #expect(FileManager.default.createFile(atPath: path, contents: Data(padded.utf8)))
            let store = try LastFixStore(directory: directory)
            #expect(store.lastFix == nil)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func aValidStoredFixIsRestored() throws {
        try withTemporaryDirectory { directory in
            #expect(FileManager.default.createFile(atPath: directory + "/lastFix.json", contents: Data(Self.good.utf8)))
            let store = try LastFixStore(directory: directory)
            #expect(store.lastFix?.lat == 52.5)
            #expect(store.lastFix?.source == .restored)
        }
    }

    @Test func aStoredFixFromTheFutureDoesNotBlockNewFixes() throws {
        try withTemporaryDirectory { directory in
            let now = Date()
            let future = Location(
                time: now.addingTimeInterval(86_400 * 365), mode: .threeD, lat: 1, lon: 2, source: .gpsd)
            try JSONEncoder().encode(future).write(to: URL(fileURLWithPath: directory + "/lastFix.json"))
            let store = try LastFixStore(directory: directory, now: { now })
            #expect(store.lastFix?.source == .restored)
            let live = Location(time: now, mode: .threeD, lat: 52.5, lon: 13.4, source: .gpsd)
            store.record(live)
            #expect(store.lastFix == live)
            #expect(store.rejected.isEmpty)
            try store.flush()
            let stored = try JSONDecoder().decode(
                Location.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/lastFix.json")))
            #expect(stored.lat == 52.5)
        }
    }

    @Test func aFailingWriteIsLoggedOncePerOutage() throws {
        let root = try TileFixtures.directory().path
        let directory = root + "/data"
        let log = LogRecorder()
        let store = try LastFixStore(
            directory: directory, configuration: .init(writeInterval: .zero), logger: log.logger,
            now: { TileFixtures.time(100) })
        // A real failing write: the directory the temporary file goes to is gone.
        try FileManager.default.removeItem(atPath: directory)
        // Each fix hands a write to the store's writer at once (interval zero): every
        // one used to fail and be logged.
        for second in 0..<50 { store.record(TileFixtures.fix(52.5, 13.4, at: Double(second))) }
        #expect(throws: LocationError.self) { try store.flush() }
        #expect(log.messages(at: .error).count == 1, "\(log.messages(at: .error))")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try store.flush()
        #expect(log.messages(at: .notice).contains { $0.contains("works again") })
        #expect(log.messages(at: .error).count == 1)
    }
}
