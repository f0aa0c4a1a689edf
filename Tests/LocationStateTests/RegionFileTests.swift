import Foundation
import LocationTestSupport
import Testing

@testable import LocationProviders
@testable import LocationRegions
@testable import LocationState

@Suite(.timeLimit(.minutes(10)))
struct RegionFileTests {
    static func collection(_ features: String...) -> String {
        #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
    }

    static func feature(_ properties: String, _ geometry: String, id: String? = nil) -> String {
        #"{"type":"Feature","# + (id.map { #""id":\#($0),"# } ?? "")
            + #""properties":{\#(properties)},"geometry":\#(geometry)}"#
    }

    static let square = #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}"#

    @Test func aGoodFileGivesEveryRegion() throws {
        let text = Self.collection(
            Self.feature(
                #""name":"Home","radius":50,"color":{"deep":[1,[2,{"x":null}]]}"#,
                #"{"type":"Point","coordinates":[13.4,52.5,34.0]}"#),
            Self.feature(#""name":"Square","id":"sq""#, Self.square),
            Self.feature(#""name":"Named""#, Self.square, id: #""f-3""#))
        let set = try RegionSet(geoJSON: text)
        #expect(set.regions.map(\.id) == ["Home", "sq", "f-3"])
        #expect(set.regions.map(\.name) == ["Home", "Square", "Named"])
        guard case .circle(let lat, let lon, let radius) = try #require(set["Home"]).geometry else {
            Issue.record("Home is not a circle")
            return
        }
        #expect((lat, lon, radius) == (52.5, 13.4, 50))
    }

    /// Each bad file gives one line that names the file, the feature and the problem.
    @Test(arguments: [
        ("[1,2,3]", "regions: not GeoJSON: expected '{' at byte 0, found '['"),
        ("{\"type\":\"Feature\"", "regions: the file is a GeoJSON Feature object; regions must be a FeatureCollection"),
        ("\u{1}garbage", "regions: not GeoJSON: expected '{' at byte 0, found byte 1"),
        (
            collection(feature(#""name":"Open""#, #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1]]]}"#)),
            "regions: feature 1 (\"Open\"): a ring is not closed: it starts at [0.0, 0.0] and ends at [0.0, 1.0]"
        ),
        (
            collection(
                feature(#""name":"Bow tie""#, #"{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}"#)),
            "regions: feature 1 (\"Bow tie\"): a ring intersects itself: edge 1 ([0.0, 0.0] to [1.0, 1.0]) meets edge 3 ([1.0, 0.0] to [0.0, 1.0])"
        ),
        (
            collection(feature(#""name":"Zero","radius":0"#, #"{"type":"Point","coordinates":[1,2]}"#)),
            "regions: feature 1 (\"Zero\"): radius must be more than 0 and at most 1000000 metres, not 0.0"
        ),
        (
            collection(
                feature(#""name":"Two\nlines","radius":0,"id":"a\tb""#, #"{"type":"Point","coordinates":[1,2]}"#)),
            #"regions: feature 1 ("Two\nlines", id a\tb): radius must be more than 0 and at most 1000000 metres, not 0.0"#
        ),
        (
            collection(feature(#""name":"Negative","radius":-5"#, #"{"type":"Point","coordinates":[1,2]}"#)),
            "regions: feature 1 (\"Negative\"): radius must be more than 0 and at most 1000000 metres, not -5.0"
        ),
        (
            collection(feature(#""name":"No radius""#, #"{"type":"Point","coordinates":[1,2]}"#)),
            "regions: feature 1 (\"No radius\"): a Point needs a radius in metres (properties.radius)"
        ),
        (
            collection(feature(#""name":"A""#, square, id: "1"), feature(#""name":"B""#, square, id: "1")),
            "regions: feature 2 (\"B\", id 1): duplicate id '1', already used by feature 1 (\"A\")"
        ),
        (
            collection(feature(#""radius":5"#, #"{"type":"Point","coordinates":[1,2]}"#)),
            "regions: feature 1: has no name (properties.name)"
        ),
        (
            collection(feature(#""name":"Line""#, #"{"type":"LineString","coordinates":[[1,2],[3,4]]}"#)),
            "regions: feature 1 (\"Line\"): a LineString cannot be a region (use a Point with a radius, a Polygon or a MultiPolygon)"
        ),
    ])
    func aBadFileIsOneClearLine(text: String, message: String) {
        #expect(throws: LocationError.usage(message)) { try RegionSet(geoJSON: text) }
    }

    @Test func aMissingFileIsNoInput() {
        #expect(throws: LocationError.fileNotFound(path: "/nonexistent/regions.geojson")) {
            try RegionSet.load(geoJSONFile: "/nonexistent/regions.geojson")
        }
    }

    /// Ten million vertices: the error names the feature, after reading only a tenth of
    /// them, and memory stays bounded (the reader keeps at most the first million).
    @Test func tenMillionVerticesAreRefusedNamingTheFeature() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/huge.geojson"
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.write(
                contentsOf: Data(
                    #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Huge"},"geometry":{"type":"Polygon","coordinates":[["#
                        .utf8))
            let chunk = Data(String(repeating: "[1,2],", count: 100_000).utf8)
            for _ in 0..<100 { try handle.write(contentsOf: chunk) }
            try handle.write(contentsOf: Data("[1,2]]]}}]}".utf8))
            try handle.close()
            #expect(
                throws: LocationError.usage(
                    "\(path): feature 1 (\"Huge\"): too many vertices: the file has more than 1000000; simplify the regions or split the file"
                )
            ) { try RegionSet.load(geoJSONFile: path) }
        }
    }
}

/// Any bytes are safe input: random bytes and a good file cut or damaged anywhere give
/// regions or one usage error, never a crash or a hang.
@Suite(.timeLimit(.minutes(10)))
struct RegionFileDamageTests {
    static let good = Array(
        RegionFileTests.collection(
            RegionFileTests.feature(#""name":"Home","radius":50"#, #"{"type":"Point","coordinates":[13.4,52.5]}"#),
            RegionFileTests.feature(
                #""name":"Park""#,
                #"{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]],[[0.2,0.2],[0.4,0.2],[0.4,0.4],[0.2,0.2]]]}"#,
                id: "\"p\\u00e4rk\""
            )
        ).utf8)

    @Test func damagedFilesAreRegionsOrOneUsageLine() {
        var generator = SplitMix64(seed: 7)
        var inputs: [[UInt8]] = (0..<300).map { _ in
            (0..<Int.random(in: 0..<200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        }
        inputs += (0..<Self.good.count).map { Array(Self.good.prefix($0)) }
        for _ in 0..<500 {
            var damaged = Self.good
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            inputs.append(damaged)
        }
        for input in inputs {
            do {
                let set = try RegionSet(geoJSON: String(decoding: input, as: UTF8.self))
                #expect(set.count <= 2)
            } catch {
                #expect(error.kind == .usage)
                #expect(!error.message.contains("\n") && error.message.hasPrefix("regions: "))
            }
        }
        #expect(throws: Never.self) { try RegionSet(geoJSON: String(decoding: Self.good, as: UTF8.self)) }
    }
}
