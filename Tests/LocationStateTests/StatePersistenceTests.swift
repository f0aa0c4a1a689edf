import Dispatch
import Foundation
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationStores

@Suite(.timeLimit(.minutes(10))) struct PersistentStateTests {
    struct Settings: Codable, Equatable, Sendable {
        var name: String
        var count: Int
    }

    static let fallback = Settings(name: "default", count: 0)

    @Test func aFlushedValueIsReloadedByTheNextInstance() throws {
        try withTemporaryDirectory { root in
            let state = try PersistentState(key: "settings", defaultValue: Self.fallback, directory: root)
            #expect(state.value == Self.fallback)
            state.modify { $0.count = 42 }
            try state.flush()

            let reloaded = try PersistentState(key: "settings", defaultValue: Self.fallback, directory: root)
            #expect(reloaded.value == Settings(name: "default", count: 42))
        }
    }

    @Test func theStoreIsOwnerOnlyOnDisk() throws {
        try withTemporaryDirectory { root in
            let directory = "\(root)/locationd"
            let state = try PersistentState(key: "settings", defaultValue: Self.fallback, directory: directory)
            state ~> Settings(name: "saved", count: 1)
            try state.flush()
            #expect(try permissions(directory) == 0o700)
            #expect(try permissions("\(directory)/settings.json") == 0o600)
        }
    }

    @Test func twoConcurrentWritersLeaveTheFileEqualToTheValue() throws {
        try withTemporaryDirectory { root in
            let state = try PersistentState(key: "counter", defaultValue: 0, directory: root)
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                for step in 1...500 {
                    state ~> (writer * 1_000 + step)
                }
            }
            try state.flush()
            let stored = try JSONDecoder().decode(
                Int.self, from: Data(contentsOf: URL(fileURLWithPath: "\(root)/counter.json")))
            #expect(stored == state.value)
            #expect([500, 1_500].contains(stored))
        }
    }

    @Test func aTruncatedFileIsMovedAsideWithItsBytesAndTheDefaultIsUsed() throws {
        try withTemporaryDirectory { root in
            let full = try JSONEncoder().encode(Settings(name: "lost?", count: 7))
            let truncated = full.prefix(full.count / 2)
            try truncated.write(to: URL(fileURLWithPath: "\(root)/settings.json"))
            let log = LogRecorder()

            let state = try PersistentState(
                key: "settings", defaultValue: Self.fallback, directory: root, logger: log.logger)

            #expect(state.value == Self.fallback)
            let names = try FileManager.default.contentsOfDirectory(atPath: root)
            let aside = try #require(names.first { $0.hasPrefix("settings.corrupt-") })
            #expect(names == [aside])
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(root)/\(aside)")) == truncated)
            #expect(log.messages(at: .warning).contains { $0.contains(aside) && $0.contains("default value") })
        }
    }

    @Test func aDirectoryWhereTheFileShouldBeIsMovedAsideNotFatal() throws {
        try withTemporaryDirectory { root in
            try FileManager.default.createDirectory(atPath: "\(root)/settings.json", withIntermediateDirectories: false)
            let log = LogRecorder()
            let state = try PersistentState(
                key: "settings", defaultValue: Self.fallback, directory: root, logger: log.logger)
            #expect(state.value == Self.fallback)
            state.modify { $0.count = 1 }
            try state.flush()
            let reloaded = try PersistentState(key: "settings", defaultValue: Self.fallback, directory: root)
            #expect(reloaded.value.count == 1)
            #expect(log.messages(at: .warning).count == 1)
        }
    }

    @Test func aBadKeyIsATypedErrorAndWritesNothing() throws {
        let fileSystem = FileSystem.inMemory()
        let error = #expect(throws: LocationError.self) {
            try PersistentState(key: "../escape", defaultValue: 0, directory: "/data", fileSystem: fileSystem)
        }
        #expect(error?.kind == .usage)
        #expect(try fileSystem.contentsOfDirectory("/data").isEmpty)
        #expect(try fileSystem.contentsOfDirectory("/") == ["data"])
    }

    @Test func corruptJSONInMemoryIsKeptAside() throws {
        let fileSystem = FileSystem.inMemory(files: ["/data/counter.json": Data("{not json".utf8)])
        let state = try PersistentState(key: "counter", defaultValue: 3, directory: "/data", fileSystem: fileSystem)
        #expect(state.value == 3)
        let names = try fileSystem.contentsOfDirectory("/data")
        let aside = try #require(names.first { $0.hasPrefix("counter.corrupt-") })
        #expect(try fileSystem.load("/data/\(aside)") == Data("{not json".utf8))
        #expect(try fileSystem.load("/data/counter.json") == nil)
    }

    @Test func writesAreThrottledToTheIntervalAndFlushWritesAtOnce() throws {
        let fileSystem = FileSystem.inMemory()
        let state = try PersistentState(
            key: "counter", defaultValue: 0, directory: "/data", fileSystem: fileSystem, writeInterval: .seconds(3_600))
        let stored = { try JSONDecoder().decode(Int.self, from: fileSystem.load("/data/counter.json") ?? Data()) }
        state ~> 1
        try state.flush()
        #expect(try stored() == 1)
        state ~> 2
        state ~> 3
        #expect(try stored() == 1, "a second write within the interval waits")
        try state.flush()
        #expect(try stored() == 3)
    }

    @Test func aFailedWriteStaysPendingAndFlushReportsIt() throws {
        let files = FileSystem.inMemory()
        let failing = Locked(true)
        var fileSystem = files
        fileSystem.save = { data, path in
            if failing.withLock({ $0 }) { throw LocationError.cannotWrite(path: path, reason: "disk full") }
            try files.save(data, path)
        }
        let log = LogRecorder()
        let state = try PersistentState(
            key: "counter", defaultValue: 0, directory: "/data", fileSystem: fileSystem, logger: log.logger)
        state ~> 1
        let error = #expect(throws: LocationError.self) { try state.flush() }
        #expect(error?.kind == .cannotWrite)
        failing.withLock { $0 = false }
        try state.flush()
        #expect(try files.load("/data/counter.json") == Data("1".utf8))
    }
}
