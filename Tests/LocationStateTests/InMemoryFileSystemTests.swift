import Foundation
import LocationTestSupport
import Testing

@testable import LocationState

@Suite(.timeLimit(.minutes(10))) struct InMemoryFileSystemTests {
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
