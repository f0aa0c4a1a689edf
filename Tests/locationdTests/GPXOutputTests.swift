import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationState
@testable import LocationStores
@testable import LocationTimeline

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The official GPX 1.1 schema (public, from topografix.com), kept in the tests' fixtures.
private let gpxSchemaPath = Repository.path("Tests/Fixtures/gpx-1.1.xsd")

/// Validates the GPX document `text` against the GPX 1.1 schema with a real `xmllint`.
private func expectValidGPX(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let path = try temporaryFile(Array(text.utf8), suffix: ".gpx")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let run = try await runProgram("/usr/bin/xmllint", ["--noout", "--nonet", "--schema", gpxSchemaPath, path])
    #expect(run.status == 0, "xmllint: \(run.stderr)", sourceLocation: sourceLocation)
    #expect(run.stderr.contains("validates"), "xmllint: \(run.stderr)", sourceLocation: sourceLocation)
}

/// One track point as a GPX file holds it: the values a round trip must keep.
private struct TrackPoint: Equatable, CustomStringConvertible {
    var lat: Double
    var lon: Double
    var ele: Double?
    var time: String?
    var speed: Double?
    var course: Double?

    var description: String {
        "\(lat),\(lon) ele \(ele as Any) at \(time as Any) speed \(speed as Any) course \(course as Any)"
    }
}

/// The track points of a GPX document, segment by segment, read with Foundation's XML parser.
private func trackSegments(_ text: String) throws -> [[TrackPoint]] {
    let document = try XMLDocument(data: Data(text.utf8))
    var segments: [[TrackPoint]] = []
    func children(_ node: XMLNode, named name: String) -> [XMLElement] {
        (node.children ?? []).compactMap { $0 as? XMLElement }.filter { $0.localName == name }
    }
    func visit(_ node: XMLNode) {
        guard let element = node as? XMLElement else { return }
        if element.localName == "trkseg" {
            segments.append(
                children(element, named: "trkpt").map { point in
                    func text(_ name: String) -> String? { children(point, named: name).first?.stringValue }
                    func attribute(_ name: String) -> Double {
                        (point.attributes ?? []).first { $0.name == name }?.stringValue.flatMap(Double.init) ?? .nan
                    }
                    let extensions = children(point, named: "extensions").flatMap {
                        children($0, named: "TrackPointExtension")
                    }
                    func extensionValue(_ name: String) -> Double? {
                        extensions.flatMap { children($0, named: name) }.first?.stringValue.flatMap(Double.init)
                    }
                    return TrackPoint(
                        lat: attribute("lat"), lon: attribute("lon"),
                        ele: text("ele").flatMap(Double.init), time: text("time"),
                        speed: extensionValue("speed"), course: extensionValue("course"))
                })
            return
        }
        for child in element.children ?? [] { visit(child) }
    }
    if let root = document.rootElement() { visit(root) }
    return segments
}

/// Every GPX document locationd writes is valid GPX 1.1, with speed and
/// course in Garmin's TrackPointExtension v2, and a GPX replayed to GPX keeps its points.
@Suite(.timeLimit(.minutes(10)))
struct GPXOutputTests {
    @Test(arguments: [
        "walk.nmea", "drive.nmea", "antimeridian.nmea", "north-pole.nmea", "fix-loss.nmea", "corrupt.nmea",
    ])
    func replayWritesValidGPX(_ track: String) async throws {
        let run = try await runLocationd(["replay", Repository.sampleTrack(track), "--speed", "max", "--format", "gpx"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("<trkpt "))
        try await expectValidGPX(run.stdout)
    }

    @Test func speedAndCourseAreInGarminsTrackPointExtension() async throws {
        let run = try await runLocationd([
            "replay", Repository.sampleTrack("walk.nmea"), "--speed", "max", "--format", "gpx",
        ])
        #expect(run.stdout.contains(#"xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2""#))
        #expect(run.stdout.contains("<extensions><gpxtpx:TrackPointExtension><gpxtpx:speed>"))
        #expect(run.stdout.contains("</gpxtpx:speed><gpxtpx:course>"))
        #expect(!run.stdout.contains("<speed>") && !run.stdout.contains("<course>"))
    }

    @Test func aFixLossStartsANewSegment() async throws {
        let run = try await runLocationd([
            "replay", Repository.sampleTrack("fix-loss.nmea"), "--speed", "max", "--format", "gpx",
        ])
        let segments = try trackSegments(run.stdout)
        #expect(segments.count == 2)
        #expect(segments.allSatisfy { !$0.isEmpty })
    }

    @Test func anEmptyReplayIsValidGPX() async throws {
        let path = try temporaryFile(Array("$GPGSV,1,1,00*79\n".utf8))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "gpx"])
        #expect(run.status == 0)
        #expect(try trackSegments(run.stdout).flatMap { $0 }.isEmpty)
        try await expectValidGPX(run.stdout)
    }

    /// Values at the edges of the schema's ranges, and values it has no room for.
    @Test func edgeValuesStayInsideTheSchema() async throws {
        let time = Date(timeIntervalSince1970: 1_800_000_000.5)
        let fixes = [
            Location(
                time: time, mode: .threeD, lat: 90, lon: 180, altMSL: -420.5, speed: 0, track: 360, source: .replay),
            Location(
                time: time, mode: .twoD, lat: -90, lon: -180, speed: .nan, track: -10, satellitesUsed: 0, hdop: 99.99,
                source: .replay),
            Location(time: nil, mode: .twoD, lat: 1, lon: 179.999_999_999_9, track: 359.999_99, source: .replay),
            Location(time: time, mode: .threeD, lat: .nan, lon: 2, source: .replay),
            Location(
                time: time, mode: .threeD, lat: 1, lon: 2, altMSL: .infinity, speed: -1, hdop: .nan, source: .replay),
        ]
        var document = Array(Location.gpxHeader.utf8)
        for fix in fixes { fix.appendGPXTrackPoint(to: &document) }
        document += Array(Location.gpxFooter.utf8)
        let text = String(decoding: document, as: UTF8.self)
        try await expectValidGPX(text)
        let points = try trackSegments(text).flatMap { $0 }
        #expect(points.count == 4)
        #expect(points[0].lon == -180 && points[0].course == 0 && points[0].speed == 0 && points[0].ele == -420.5)
        #expect(points[1].speed == nil && points[1].course == 350)
        #expect(points[2].lon == -180 && points[2].course == 0 && points[2].time == nil)
        #expect(points[3].ele == nil && points[3].speed == nil)
    }

    @Test func trackRecorderExportIsValidGPX() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locationd-gpx-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = TrackRecorder(directory: directory)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for second in 0..<20 {
            recorder.record(
                Location(
                    time: start.addingTimeInterval(Double(second)), mode: .threeD, lat: 52.5,
                    lon: 13.4 + Double(second) * 0.0001, altMSL: 34.5, speed: 1.25, track: 90, satellitesUsed: 8,
                    hdop: 0.9, source: .gpsd))
        }
        try recorder.close()
        let gpx = try TrackRecorder.gpx(of: recorder.files())
        try await expectValidGPX(gpx)
        let points = try trackSegments(gpx).flatMap { $0 }
        #expect(points.count == 20)
        #expect(points.allSatisfy { $0.speed == 1.25 && $0.course == 90 && $0.ele == 34.5 })
    }

    /// GPX -> replay -> GPX keeps every track point's time, position, elevation, speed and
    /// course, and the segments.
    @Test func gpxRoundTripKeepsEveryTrackPoint() async throws {
        var input = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Garmin Connect" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
            <trk><name>Ride</name>
            """
        var expected: [[TrackPoint]] = []
        for segment in 0..<2 {
            input += "<trkseg>\n"
            var points: [TrackPoint] = []
            for index in 0..<50 {
                let second = segment * 100 + index
                let point = TrackPoint(
                    lat: 47.123_456_789 + Double(second) * 1e-5, lon: -122.987_654_321 + Double(second) * 2e-5,
                    ele: index % 7 == 0 ? nil : 100.25 + Double(index),
                    time: String(format: "2026-05-01T10:%02d:%02d.%03dZ", second / 60, second % 60, index * 7 % 1000),
                    speed: index % 5 == 0 ? nil : 3.125 + Double(index) / 8,
                    course: index % 4 == 0 ? nil : Double(index * 7) + 0.25)
                points.append(point)
                input += #"<trkpt lat="\#(point.lat)" lon="\#(point.lon)">"#
                if let ele = point.ele { input += "<ele>\(ele)</ele>" }
                input += "<time>\(point.time!)</time>"
                if point.speed != nil || point.course != nil {
                    input += "<extensions><gpxtpx:TrackPointExtension>"
                    if let speed = point.speed { input += "<gpxtpx:speed>\(speed)</gpxtpx:speed>" }
                    if let course = point.course { input += "<gpxtpx:course>\(course)</gpxtpx:course>" }
                    input += "</gpxtpx:TrackPointExtension></extensions>"
                }
                input += "</trkpt>\n"
            }
            input += "</trkseg>\n"
            expected.append(points)
        }
        input += "</trk></gpx>\n"
        try await expectValidGPX(input)
        let path = try temporaryFile(Array(input.utf8), suffix: ".gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "gpx"])
        #expect(run.status == 0)
        try await expectValidGPX(run.stdout)
        let segments = try trackSegments(run.stdout)
        #expect(segments.map(\.count) == expected.map(\.count))
        for (actual, wanted) in zip(segments.flatMap { $0 }, expected.flatMap { $0 }) {
            #expect(
                abs(actual.lat - wanted.lat) < 1e-9 && abs(actual.lon - wanted.lon) < 1e-9, "\(actual) != \(wanted)")
            #expect(actual.time == wanted.time, "\(actual) != \(wanted)")
            #expect(actual.ele == wanted.ele && actual.speed == wanted.speed, "\(actual) != \(wanted)")
            #expect(actual.course == wanted.course, "\(actual) != \(wanted)")
        }
    }
}
