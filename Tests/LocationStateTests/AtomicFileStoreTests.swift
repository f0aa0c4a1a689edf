import Foundation
import LocationTestSupport
import Testing

@testable import LocationState

@Suite(.timeLimit(.minutes(10))) struct AtomicFileStoreTests {
    @Test(arguments: [
        "", "a/b", "..", "../escape", "a..b", "/etc/passwd", "nul\u{0}byte", String(repeating: "k", count: 201),
    ])
    func keysThatCouldLeaveTheDirectoryAreRejected(key: String) throws {
        let fileSystem = FileSystem.inMemory()
        let store = try AtomicFileStore(directory: "/data", fileSystem: fileSystem)
        let error = #expect(throws: LocationError.self) { try store.write(Data("x".utf8), key: key) }
        #expect(error?.kind == .usage)
        #expect(throws: LocationError.self) { try store.read(key: key) }
        #expect(try fileSystem.contentsOfDirectory("/data").isEmpty)
        #expect(try fileSystem.contentsOfDirectory("/") == ["data"])
    }

    @Test func writesAndReadsUnderKeyDotJSON() throws {
        let fileSystem = FileSystem.inMemory()
        let store = try AtomicFileStore(directory: "/data/locationd", fileSystem: fileSystem)
        #expect(try store.read(key: "lastfix") == nil)
        try store.write(Data("{}".utf8), key: "lastfix")
        #expect(try store.read(key: "lastfix") == Data("{}".utf8))
        #expect(try fileSystem.load("/data/locationd/lastfix.json") == Data("{}".utf8))
    }

    @Test func moveAsideNamesTheFileWithAUTCTimestampAndNeverOverwrites() throws {
        let fileSystem = FileSystem.inMemory(files: ["/data/lastfix.json": Data("one".utf8)])
        let store = try AtomicFileStore(directory: "/data", fileSystem: fileSystem)
        let date = Date(timeIntervalSince1970: 1_795_347_295.125)
        let first = try store.moveAside(key: "lastfix", at: date)
        try store.write(Data("two".utf8), key: "lastfix")
        let second = try store.moveAside(key: "lastfix", at: date)

        #expect(first == "/data/lastfix.corrupt-20261122T113455.125Z")
        #expect(second == "/data/lastfix.corrupt-20261122T113455.125Z-2")
        #expect(try fileSystem.load(first) == Data("one".utf8))
        #expect(try fileSystem.load(second) == Data("two".utf8))
        #expect(try store.read(key: "lastfix") == nil)
    }
}
