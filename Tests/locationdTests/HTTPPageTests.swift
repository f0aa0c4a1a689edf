import Foundation
import LocationTestSupport
import Testing

/// The page at `/` in a real headless browser (Debian's chromium, driven by its
/// chromedriver), against a daemon reading a real gpsd fed by gpsfake with a drive
/// played once: it shows the position the API reports, its badge goes from live to
/// `stale` when the log ends and `lost` when gpsd goes (in the same open page, through
/// the event stream), and its tile layer holds as many tiles as the API lists.
@Suite(.timeLimit(.minutes(5)))
struct HTTPPageTests {
    static let drive = HTTPAPITests.root.appendingPathComponent("SampleTracks/drive.nmea")

    /// Polls `/api/v1/last` until its state is `state`. A poll whose connection ends
    /// without an answer (seen once in CI, with every suite running beside it) is polled
    /// again; a daemon that never answers still fails the wait.
    static func last(_ client: HTTPTestClient, state: String, within seconds: Double) async throws -> [String: Any] {
        try await waitUntil(seconds: seconds, "/api/v1/last becoming \(state)") {
            guard let answer = try? await client.get("/api/v1/last").object() else { return nil }
            return answer["state"] as? String == state ? answer : nil
        }
    }

    @Test func thePageShowsTheFixItsFreshnessAndTheTiles() async throws {
        // 0.06 s a sentence: the drive plays for 72 s, so that "live" lasts past a browser
        // that starts slowly with every other suite running beside it.
        let gpsfake = try GPSFake(log: Self.drive, cycle: 0.06, once: true)
        defer { gpsfake.stop() }
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data",
            arguments: [
                "--source", "gpsd", "--gpsd", "127.0.0.1:\(gpsfake.port)", "--freshness-timeout", "1", "--record",
            ])
        let port = try await daemon.httpPort()
        let client = HTTPTestClient(port: port)
        let browser = try await WebDriver()
        // The page is open before the drive plays: a browser started on a loaded machine
        // once took longer than what was left of a shorter drive, and the fix was stale by then.
        try await browser.open("http://127.0.0.1:\(port)/")
        try await gpsfake.startFeeding()

        // While the drive plays: live.
        _ = try await Self.last(client, state: "live", within: 60)
        try await browser.waitFor(
            "the live badge", seconds: 60,
            #"return document.getElementById("badge").dataset.badge === "live""#)
        let shown = try #require(
            try await browser.run(
                #"return [Number(document.getElementById("lat").dataset.value), Number(document.getElementById("lon").dataset.value)]"#
            )
                as? [Double])
        // Where the API says the car is, asked right after: the drive plays eight times as fast as
        // it was driven, so by the time a browser has started on a loaded machine the car is
        // kilometres on from where it was when it became live; the page follows it, a second or
        // so behind at most.
        let now = try await client.get("/api/v1/last").object()
        #expect(abs(shown[0] - (now["lat"] as? Double ?? 0)) < 0.05, "\(shown) against \(now)")
        #expect(abs(shown[1] - (now["lon"] as? Double ?? 0)) < 0.05, "\(shown) against \(now)")
        let text = try #require(try await browser.run(#"return document.getElementById("lat").textContent"#) as? String)
        #expect(text.hasSuffix("° N"), "\(text)")
        // The age: the drive's first fix is a GGA alone, which has no date and so no time
        // (and no age) until the epoch's RMC; the page shows one as soon as its fix has a time.
        try await browser.waitFor(
            "the fix's age", seconds: 60, #"return document.getElementById("age").textContent.startsWith("age ")"#)

        // The log ends: a second without a fix makes the fix stale, and the open page says so
        // (or that the source is lost, once gpsd drops the finished log's terminal); a page
        // loaded then shows exactly the last fix, and every tile the API lists.
        let stale = try await Self.last(client, state: "stale", within: 120)
        try await browser.waitFor(
            "a stale or lost badge",
            #"return ["stale", "lost"].includes(document.getElementById("badge").dataset.badge)"#)
        // The tile log is written in batches, so it may still grow a little after the
        // source stopped: compare a page loaded while the count stood still.
        var compared = false
        for _ in 0..<10 where !compared {
            let before = try await tileCount(client, zoom: 17)
            try await browser.open("http://127.0.0.1:\(port)/")
            try await browser.waitFor(
                "the tile layer", #"return document.getElementById("map").dataset.tileZoom === "17""#)
            let drawn = try #require(
                try await browser.run(#"return Number(document.getElementById("map").dataset.tilesDrawn)"#) as? Int)
            guard try await tileCount(client, zoom: 17) == before else { continue }
            #expect(before > 1)
            #expect(drawn == before)
            compared = true
        }
        #expect(compared, "the tile log kept changing")
        // The recorded track of the fix's day (`--record`).
        try await browser.waitFor(
            "the recorded track", #"return Number(document.getElementById("map").dataset.trackPoints) > 100"#)
        let fix = try #require(
            try await browser.run(
                #"return [Number(document.getElementById("lat").dataset.value), Number(document.getElementById("lon").dataset.value)]"#
            )
                as? [Double])
        #expect(fix == [stale["lat"] as? Double ?? 0, stale["lon"] as? Double ?? 0])
        // gpsd goes (gpsfake ends and takes it along): the status is `lost`, and the open page
        // says so through its event stream.
        gpsfake.stop()
        _ = try await waitUntil(seconds: 60, "/api/v1/status becoming lost") {
            try await client.get("/api/v1/status").object()["state"] as? String == "lost" ? true : nil
        }
        try await browser.waitFor(
            "the lost badge", #"return document.getElementById("badge").dataset.badge === "lost""#)
        #expect(try await browser.run(#"return document.getElementById("badge").textContent"#) as? String == "lost")
        let png = try await browser.screenshot()
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        await browser.quit()
        #expect(try await daemon.stop().status == 0)
    }

    /// How many tiles at `zoom` the API lists.
    private func tileCount(_ client: HTTPTestClient, zoom: Int) async throws -> Int {
        try await client.get("/api/v1/tiles?zoom=\(zoom)&format=txt").body.split(separator: "\n").count
    }
}
