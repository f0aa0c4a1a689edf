import Foundation
import Testing

@testable import LocationState

@Suite(.timeLimit(.minutes(1))) struct LiveFileSystemTests {
    let fileSystem = FileSystem.live

    @Test func saveWritesAnOwnerOnlyFileInAnOwnerOnlyDirectoryAndLeavesNoTemporaryFile() throws {
        try withTemporaryDirectory { root in
            let directory = "\(root)/state/locationd"
            try fileSystem.createDirectory(directory)
            try fileSystem.save(Data("first".utf8), "\(directory)/k.json")
            try fileSystem.save(Data("second".utf8), "\(directory)/k.json")

            #expect(try fileSystem.load("\(directory)/k.json") == Data("second".utf8))
            #expect(try permissions(directory) == 0o700)
            #expect(try permissions("\(root)/state") == 0o700)
            #expect(try permissions("\(directory)/k.json") == 0o600)
            #expect(try fileSystem.contentsOfDirectory(directory) == ["k.json"])
        }
    }

    @Test func loadingNothingGivesNilAndLoadingADirectoryOrALinkThrows() throws {
        try withTemporaryDirectory { root in
            #expect(try fileSystem.load("\(root)/missing.json") == nil)
            try FileManager.default.createDirectory(atPath: "\(root)/dir.json", withIntermediateDirectories: false)
            #expect(throws: LocationError.self) { try fileSystem.load("\(root)/dir.json") }
            try Data("secret".utf8).write(to: URL(fileURLWithPath: "\(root)/target"))
            try FileManager.default.createSymbolicLink(
                atPath: "\(root)/link.json", withDestinationPath: "\(root)/target")
            #expect(throws: LocationError.self) { try fileSystem.load("\(root)/link.json") }
        }
    }

    @Test func savingOverADirectoryThrowsAndLeavesItAlone() throws {
        try withTemporaryDirectory { root in
            try FileManager.default.createDirectory(atPath: "\(root)/k.json", withIntermediateDirectories: false)
            let error = #expect(throws: LocationError.self) { try fileSystem.save(Data("x".utf8), "\(root)/k.json") }
            #expect(error?.kind == .cannotWrite)
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: "\(root)/k.json", isDirectory: &isDirectory))
            #expect(isDirectory.boolValue)
            #expect(try fileSystem.contentsOfDirectory(root) == ["k.json"])
        }
    }

    @Test func aFileWhereTheDirectoryShouldBeIsATypedError() throws {
        try withTemporaryDirectory { root in
            try Data().write(to: URL(fileURLWithPath: "\(root)/state"))
            let error = #expect(throws: LocationError.self) { try AtomicFileStore(directory: "\(root)/state") }
            #expect(error?.kind == .cannotWrite)
            #expect(error?.message.contains("not a directory") == true)
        }
    }

    @Test func moveRefusesToReplaceAnExistingFile() throws {
        try withTemporaryDirectory { root in
            try fileSystem.save(Data("a".utf8), "\(root)/a")
            try fileSystem.save(Data("b".utf8), "\(root)/b")
            #expect(throws: LocationError.self) { try fileSystem.moveItem("\(root)/a", "\(root)/b") }
            #expect(try fileSystem.load("\(root)/b") == Data("b".utf8))
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct AtomicFileStoreTests {
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

@Suite(.timeLimit(.minutes(1))) struct InMemoryFileSystemTests {
    @Test func behavesLikeTheLiveOneForTheCasesTheStoresMeet() throws {
        let fileSystem = FileSystem.inMemory(directories: ["/data/k.json"])
        #expect(throws: LocationError.self) { try fileSystem.load("/data/k.json") }
        #expect(throws: LocationError.self) { try fileSystem.save(Data(), "/data/k.json") }
        #expect(throws: LocationError.self) { try fileSystem.save(Data(), "/missing/k.json") }
        try fileSystem.save(Data("x".utf8), "/data/file")
        #expect(throws: LocationError.self) { try fileSystem.createDirectory("/data/file/below") }
        try fileSystem.moveItem("/data/k.json", "/data/k.aside")
        #expect(try fileSystem.contentsOfDirectory("/data") == ["file", "k.aside"])
        #expect(try fileSystem.load("/data/k.json") == nil)
    }
}
