import Foundation
import LocationTestSupport
import Testing

@testable import LocationState

@Suite(.timeLimit(.minutes(10))) struct LiveFileSystemTests {
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
