import Foundation
import LocationStores
import LocationTestSupport
import Testing

@testable import locationd

/// The HTTP API of a real daemon (`locationd run --http 127.0.0.1:0`): the answers,
/// their field names, and a one-line reason for every bad request.
@Suite(.timeLimit(.minutes(5)))
struct HTTPAPITests {
    static let root = Repository.root
    static let walk = root.appendingPathComponent("SampleTracks/walk.nmea")
    static let schema = root.appendingPathComponent("Tests/Fixtures/gpx-1.1.xsd")

    /// Waits until `/api/v1/last` answers a live fix, and returns it.
    static func liveFix(_ client: HTTPTestClient) async throws -> [String: Any] {
        try await waitUntil(seconds: 30, "a live fix") {
            let answer = try await client.get("/api/v1/last").object()
            return answer["state"] as? String == "live" ? answer : nil
        }
    }

    @Test func simulatedSourceAnswersLastStatusAndTiles() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"])
        let client = HTTPTestClient(port: try await daemon.httpPort())

        let last = try await Self.liveFix(client)
        #expect(last["class"] as? String == "TPV")
        #expect(last["source"] as? String == "simulated")
        #expect(last["code"] as? Int == 0)
        #expect(last["lat"] is Double && last["lon"] is Double && last["age"] is Double)
        // The same fields as `locationd last --json`.
        let cli = try await runLocationd(["last", "--data-dir", daemon.dataDirectory, "--json"])
        let cliObject = try #require(try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any])
        #expect(Set(last.keys).subtracting(["code"]) == Set(cliObject.keys))

        let asked = Date()
        let status = try await client.get("/api/v1/status")
        let answered = Date()
        #expect(status.status == 200)
        #expect(status.headers["content-type"] == "application/json")
        #expect(status.headers["access-control-allow-origin"] == nil)
        // RFC 9110's Date: the second the answer was made, between the request and its answer
        // (whole seconds, so the request's second is rounded down).
        let date = try #require(status.headers["date"])
        let parsed = DateFormatter()
        parsed.locale = Locale(identifier: "en_US_POSIX")
        parsed.timeZone = TimeZone(identifier: "GMT")
        parsed.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let when = try #require(parsed.date(from: date), "not an IMF-fixdate: \(date)")
        #expect(
            when >= asked.addingTimeInterval(-1) && when <= answered, "\(date) not between \(asked) and \(answered)")
        let statusObject = try status.object()
        #expect(statusObject["source"] as? String == "simulated")
        #expect(statusObject["state"] as? String == "live")
        #expect(statusObject["connected"] as? Bool == true)
        #expect((statusObject["fixes"] as? Int ?? 0) >= 1)
        #expect(statusObject["uptime"] is Double)

        // The simulator's fixes are no history: after a few of them, and the daemon's
        // flush at its stop, the tile log holds none.
        _ = try await waitUntil(seconds: 30, "three simulated fixes") {
            let status = try await client.get("/api/v1/status").object()
            return (status["fixes"] as? Int ?? 0) >= 3 ? true : nil
        }
        #expect(try await daemon.stop().status == 0)
        let tiles = try await runLocationd(["tiles", "--data-dir", daemon.dataDirectory])
        #expect(tiles.stdout.isEmpty, "\(tiles.stdout.prefix(300))")
        #expect(tiles.status == 0 || tiles.stderr.contains("no tile database here yet"), "\(tiles.stderr)")
    }

    @Test(arguments: [
        ("/api/v1/tiles?zoom=23", 400, "zoom must be a number from 0 to 22"),
        ("/api/v1/tiles?zoom=abc", 400, "zoom must be a number"),
        ("/api/v1/tiles?format=xml", 400, "format must be geojson, txt or csv"),
        ("/api/v1/tracks.gpx?from=2026-11-23&to=2026-11-22", 400, "the range is backwards"),
        ("/api/v1/tracks.gpx?from=2026-13-01&to=2026-11-22", 400, "from is not a date"),
        ("/api/v1/tracks.gpx?from=2026-01-01", 400, "give the range as from=DATE&to=DATE"),
        ("/api/v1/tracks.gpx?from=2025-01-01&to=2026-01-01", 400, "at most 31 days"),
        ("/api/v1/tracks/2026-02-30.gpx", 400, "a track is named YYYY-MM-DD.gpx"),
        ("/api/v1/tracks/..%2F..%2Fetc%2Fpasswd", 400, "a track is named YYYY-MM-DD.gpx"),
        ("/api/v1/tracks/2020-01-01.gpx", 404, "no track was recorded on 2020-01-01"),
        ("/etc/passwd", 404, "nothing at /etc/passwd"),
        ("/../../../etc/passwd", 404, "nothing at"),
        ("/index.html", 404, "nothing at /index.html"),
        ("/api/v2/last", 404, "nothing at /api/v2/last"),
    ])
    func badRequestsGetAOneLineReason(path: String, status: Int, reason: String) async throws {
        let directory = try TemporaryDirectory()
        let http = InProcessHTTP(HTTPService(context: try DaemonContext.testing(directory: directory.path)))
        let answer = try await http.get(path)
        #expect(answer.status == status, "\(answer.body)")
        let message = try #require(try answer.object()["error"] as? String)
        #expect(message.contains(reason), "\(message)")
        #expect(!message.contains("\n"))
    }

    @Test func malformedHugeAndForeignRequestsAre4xxAndTheDaemonGoesOn() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"])
        let client = HTTPTestClient(port: try await daemon.httpPort())
        let huge = try await client.get("/api/v1/last", headers: ["X-Junk": String(repeating: "a", count: 64 * 1024)])
        #expect((400..<500).contains(huge.status) || huge.status == -1, "\(huge.status)")
        let garbage = try await client.send(Data("NOT HTTP AT ALL\r\n\r\n".utf8))
        #expect((400..<500).contains(garbage.status) || garbage.status == -1)
        let post = try await client.send(
            Data(
                "POST /api/v1/last HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: 100000000\r\n\r\n"
                    .utf8)
        )
        #expect(post.status == 413, "\(post.body)")
        #expect(try await client.get("/api/v1/last").status == 200)
        #expect(try await daemon.stop().status == 0)
    }

    @Test func replaySourceAndRecordedTracksAsGPX() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "replay", Self.walk.path, "--record"])
        let client = HTTPTestClient(port: try await daemon.httpPort())
        let last = try await Self.liveFix(client)
        #expect(last["source"] as? String == "replay")
        // The walk's fixes: the answer is one of them.
        let replayed = try await GPSDSampleTrackTests.replayed(Self.walk)
        let time = try #require(last["time"] as? String)
        let expected = try #require(replayed[time], "the API answered a fix at \(time) that the walk does not have")
        #expect(abs((last["lat"] as? Double ?? 0) - (expected["lat"] as! Double)) < 1e-7)

        // The recorder writes within a second; then the day is listed and exports as valid GPX 1.1.
        let days = try await waitUntil(seconds: 30, "a recorded day") {
            let days = try await client.get("/api/v1/tracks").object()["days"] as? [[String: Any]] ?? []
            return days.isEmpty ? nil : days
        }
        let day = try #require(days.first?["day"] as? String)
        #expect(days.first?["gpx"] as? String == "/api/v1/tracks/\(day).gpx")
        let gpx = try await client.get("/api/v1/tracks/\(day).gpx")
        #expect(gpx.status == 200)
        #expect(gpx.headers["content-type"] == "application/gpx+xml")
        #expect(gpx.body.contains("<trkpt"))
        let file = directory.path + "/day.gpx"
        try gpx.body.write(toFile: file, atomically: true, encoding: .utf8)
        let lint = try await runProgram("/usr/bin/xmllint", ["--noout", "--schema", Self.schema.path, file])
        #expect(lint.status == 0, "\(lint.stderr)")
        // A range over that day holds the same points; one before it holds none.
        let range = try await client.get("/api/v1/tracks.gpx?from=\(day)&to=\(day)")
        #expect(range.status == 200)
        #expect(range.body.components(separatedBy: "<trkpt").count >= gpx.body.components(separatedBy: "<trkpt").count)
        let before = try await client.get("/api/v1/tracks.gpx?from=2001-01-01&to=2001-01-02")
        #expect(before.status == 200 && !before.body.contains("<trkpt"))

        // Tiles: wait until the tile log has some, then the formats agree with each other and with the CLI.
        try await waitUntil(seconds: 30) {
            FileManager.default.fileExists(atPath: daemon.dataDirectory + "/tiles.sqlite")
        }
        let lines = try await waitUntil(seconds: 30, "tiles at zoom 17") {
            let lines = try await client.get("/api/v1/tiles?zoom=17&format=txt").body.split(separator: "\n")
            return lines.isEmpty ? nil : lines
        }
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("17/") }, "\(lines.prefix(3))")
        let geojson = try await client.get("/api/v1/tiles?zoom=14")
        #expect(geojson.headers["content-type"] == "application/geo+json", "\(geojson.body.prefix(300))")
        let collection = try geojson.object()
        #expect(collection["type"] as? String == "FeatureCollection")
        let csv = try await client.get("/api/v1/tiles?zoom=14&format=csv")
        #expect(csv.body.hasPrefix("zoom,x,y,first_seen,last_seen,visits\n"))
        #expect(csv.body.split(separator: "\n").count - 1 == (collection["features"] as? [Any])?.count)

        let stats = try await client.get("/api/v1/tiles/stats").object()
        let zooms = try #require(stats["zooms"] as? [[String: Any]])
        #expect(zooms.map { $0["zoom"] as? Int } == [14, 17])
        for zoom in zooms {
            #expect((zoom["tiles"] as? Int ?? 0) >= 1)
            #expect(((zoom["maxSquare"] as? [String: Any])?["size"] as? Int ?? 0) >= 1)
            #expect(zoom["firstSeen"] is String && zoom["lastSeen"] is String)
        }
        #expect(try await daemon.stop().status == 0)
    }
}
