import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationMQTT
@testable import LocationState

/// libmosquitto and libxml2 are loaded at run time (`CMosquitto`, `CLibXML2`): a library
/// that cannot be loaded is one sentence naming it, never a crash.
@Suite(.timeLimit(.minutes(10))) struct LibraryLoadingTests {
    @Test func aLibraryThatCannotBeLoadedIsOneClearError() throws {
        let error = try #require(throws: LocationError.self) {
            try MosquittoLibrary.load(soname: "libmosquitto.so.0-absent")
        }
        #expect(error.kind == .unavailable)
        #expect(error.message.contains("libmosquitto.so.0-absent"))
        #expect(!error.message.contains("\n"))
        try MosquittoLibrary.load()

        let problem = try #require(GPXParser.loadLibrary(soname: "libxml2.so.0-absent"))
        #expect(problem.contains("libxml2.so.0-absent"))
        #expect(GPXParser.loadLibrary(soname: GPXParser.librarySoname) == nil)
    }
}
