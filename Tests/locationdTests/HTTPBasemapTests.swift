import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// The optional basemap (`http-basemap`): checked at start, allowed by the page's
/// Content-Security-Policy, and drawn by the page in a real headless chromium from a
/// tile server the test runs: tiles are asked for with one, and none without.
@Suite(.timeLimit(.minutes(5)))
struct HTTPBasemapTests {
    /// A tiny HTTP server on a loopback port that answers every GET with a 256 x 256
    /// PNG and keeps the paths asked for.
    final class TileServer: Sendable {
        let port: Int
        private let listener: Int32
        private let paths = Locked<[String]>([])
        /// A 256 x 256 grey PNG.
        static let png = Data(
            base64Encoded:
                "iVBORw0KGgoAAAANSUhEUgAAAQAAAAEACAAAAAB5Gfe6AAABN0lEQVR42u3QAQEAAAjDoEdfdIMIEVjPTYAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECBAgQIAAAQIECKgD+XwHgaZcO5EAAAAASUVORK5CYII="
        )!

        init() throws {
            (listener, port) = try listenOnLoopback(backlog: 64)
            Thread.detachNewThread { [self] in serve() }
        }

        deinit {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }

        /// The paths asked for so far.
        var requested: [String] { paths.withLock { $0 } }

        func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

        private func serve() {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { return }
                Thread.detachNewThread { [self] in
                    Self.answer(client) { path in paths.withLock { $0.append(path) } }
                }
            }
        }

        /// Answers the requests on one connection (keep-alive) until the client leaves.
        private static func answer(_ client: Int32, record: (String) -> Void) {
            defer { close(client) }
            readMessages(from: client) { pending in
                while let end = pending.indices.dropLast(3).first(where: {
                    pending[$0] == 13 && pending[$0 + 1] == 10 && pending[$0 + 2] == 13 && pending[$0 + 3] == 10
                }) {
                    let head = String(decoding: pending[..<end], as: UTF8.self)
                    pending.removeFirst(end + 4)
                    record(String(head.split(separator: " ").dropFirst().first ?? ""))
                    let answer =
                        Data(
                            "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(png.count)\r\n\r\n".utf8)
                        + png
                    _ = answer.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                }
                return true
            }
        }
    }

    @Test func thePageDrawsTheConfiguredBasemapAndNoneWithout() async throws {
        let tiles = try TileServer()
        defer { tiles.stop() }
        let template = "http://127.0.0.1:\(tiles.port)/tiles/{z}/{x}/{y}.png?style=dark&v=2"
        let browser = try await WebDriver()

        // With a basemap: the page asks the tile server for tiles and draws them.
        let directory = try TemporaryDirectory()
        let configuration = directory.path + "/locationd.conf"
        try "http-basemap = \(template)\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated", "--config", configuration])
        let port = try await daemon.httpPort()
        let page = try await HTTPTestClient(port: port).get("/")
        let policy = try #require(page.headers["content-security-policy"])
        #expect(policy.contains("img-src 'self' data: http://127.0.0.1:\(tiles.port);"), "\(policy)")
        #expect(
            page.body.contains(
                #"data-basemap="http://127.0.0.1:\#(tiles.port)/tiles/{z}/{x}/{y}.png?style=dark&amp;v=2""#))
        _ = try await HTTPAPITests.liveFix(HTTPTestClient(port: port))
        try await browser.open("http://127.0.0.1:\(port)/")
        try await browser.waitFor(
            "basemap tiles drawn", #"return Number(document.getElementById("map").dataset.basemapTiles) > 0"#)
        let asked = tiles.requested
        #expect(!asked.isEmpty)
        #expect(
            asked.allSatisfy { $0.wholeMatch(of: /\/tiles\/\d+\/\d+\/\d+\.png\?style=dark&v=2/) != nil }, "\(asked)")
        #expect(
            try await browser.run(#"return document.getElementById("basemapHost").textContent"#) as? String
                == "basemap: 127.0.0.1:\(tiles.port)")
        #expect(try await daemon.stop().status == 0)

        // Without: the page draws its own layers and asks the tile server for nothing.
        let before = tiles.requested.count
        let plain = try TemporaryDirectory()
        let other = try await DaemonProcess(dataDirectory: plain.path + "/data", arguments: ["--source", "simulated"])
        let otherPort = try await other.httpPort()
        let otherPage = try await HTTPTestClient(port: otherPort).get("/")
        #expect(otherPage.headers["content-security-policy"]?.contains("img-src 'self' data:;") == true)
        #expect(!otherPage.body.contains("data-basemap"))
        _ = try await HTTPAPITests.liveFix(HTTPTestClient(port: otherPort))
        try await browser.open("http://127.0.0.1:\(otherPort)/")
        try await browser.waitFor(
            "the map drawn around the fix", #"return document.getElementById("map").dataset.trackPoints !== undefined"#)
        #expect(
            try await browser.run(#"return document.getElementById("map").dataset.basemapTiles === undefined"#) as? Bool
                == true)
        #expect(tiles.requested.count == before, "\(tiles.requested.dropFirst(before))")
        await browser.quit()
        #expect(try await other.stop().status == 0)
    }

    @Test(arguments: [
        "tile.example.org/{z}/{x}/{y}.png",
        "ftp://tile.example.org/{z}/{x}/{y}.png",
        "https://tile.example.org/{z}/{x}.png",
        "https://{s}.tile.example.org/{z}/{x}/{y}.png",
        "https://tile.example.org/{z}/{x}/{y}.png; script-src *",
        "https:///{z}/{x}/{y}.png",
        "https://user:secret@tile.example.org/{z}/{x}/{y}.png",
    ])
    func aBadTemplateStopsTheStartWithOneLine(template: String) async throws {
        let directory = try TemporaryDirectory()
        let configuration = directory.path + "/locationd.conf"
        try "http-basemap = \(template)\n".write(toFile: configuration, atomically: true, encoding: .utf8)
        let run = try await runLocationd([
            "run", "--data-dir", directory.path + "/data", "--source", "simulated", "--http", "127.0.0.1:0",
            "--config", configuration,
        ])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("http-basemap must be an http or https URL with {z}, {x} and {y}"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }

    @Test(arguments: [
        ("https://tile.example.org/{z}/{x}/{y}.png", "https://tile.example.org"),
        ("http://127.0.0.1:8080/t/{z}/{y}/{x}@2x.png?key=a&b=c", "http://127.0.0.1:8080"),
        ("HTTPS://[::1]:9000/{z}/{x}/{y}", "https://[::1]:9000"),
    ])
    func theOriginThePolicyAllows(template: String, origin: String) {
        #expect(HTTPConfiguration.basemapOrigin(of: template) == origin)
    }
}
