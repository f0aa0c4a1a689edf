import Foundation
import LocationState
import LocationTestSupport
import Testing

/// The page's timeline in a real headless browser, against a daemon reading a real gpsd
/// (gpsfake) fed a parked receiver, a 3 km drive and another stop, played fast: the day's
/// stay, trip and open stay in the panel, "parked for at least …" under the badge and the
/// open stay known until the last fix (the fixes are days old), and a click on the trip
/// draws it and fits the map to it.
///
/// The screenshot is left in the temporary directory (`locationd-timeline-page.png`);
/// `scripts/page-screenshot` makes docs/page.png.
@Suite(.timeLimit(.minutes(5)))
struct HTTPTimelinePageTests {
    @Test func theDaysTimelineAndAClickedTrip() async throws {
        let track = ParkedTrack([.parked(seconds: 360), .drive(metres: 3000, speed: 10), .parked(seconds: 420)])
        let log = try track.write(name: "timeline-page")
        defer { try? FileManager.default.removeItem(at: log) }
        let gpsfake = try GPSFake(log: log, cycle: 0.002, once: true)
        defer { gpsfake.stop() }
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data",
            arguments: [
                "--source", "gpsd", "--gpsd", "127.0.0.1:\(gpsfake.port)", "--freshness-timeout", "2", "--record",
            ])
        let client = HTTPTestClient(port: try await daemon.httpPort())
        try await gpsfake.startFeeding()
        let stale = try await HTTPPageTests.last(client, state: "stale", within: 90)
        let day = String(UTCCalendar.iso8601(track.fixes[0].time!).prefix(10))
        let timeline = try await client.get("/api/v1/timeline?day=\(day)").object()
        let entries = try #require(timeline["entries"] as? [[String: Any]])
        #expect(entries.map { $0["class"] as? String } == ["STAY", "TRIP", "STAY"], "\(entries)")
        let distance = try #require(entries.count > 1 ? entries[1]["distance"] as? Double : nil)
        #expect(abs(distance - 3000) < 150, "the trip's distance: \(distance) m")

        let browser = try await WebDriver()
        try await browser.open("http://127.0.0.1:\(try await daemon.httpPort())/")
        try await browser.waitFor(
            "the day's three entries", #"return document.getElementById("timeline").dataset.entries === "3""#)
        try await browser.waitFor(
            "parked for …", #"return document.getElementById("parked").dataset.motion === "stopped""#)
        let parked = try #require(
            try await browser.run(#"return document.getElementById("parked").textContent"#) as? String)
        // The fix is old (and stale): stopped at least from the second stay's start to the
        // last fix, 6 or 7 minutes; at the place the open stay is named by.
        let place = try #require(entries.last?["name"] as? String, "\(entries)")
        #expect(
            parked == "parked for at least 7 min at \(place)" || parked == "parked for at least 6 min at \(place)",
            "\(parked)")
        // The open stay is not "now": it says since when, and until when it is known.
        let open = try #require(
            try await browser.run(##"return document.querySelector("#timeline li.open .when").textContent"##) as? String
        )
        let (start, lastFix) = (entries.last?["start"] as? String ?? "", stale["time"] as? String ?? "")
        #expect(
            open == "since \(start.dropFirst(11).prefix(5)), last fix \(lastFix.dropFirst(11).prefix(5))", "\(open)")
        // The recorded track as drawn: each stay one point (its centroid), the drive's fixes between them.
        try await browser.waitFor(
            "the recorded track", #"return Number(document.getElementById("map").dataset.trackPoints) > 100"#)
        let drawn = try #require(
            try await browser.run(
                #"""
                const t = drawnTrack(), home = S.entries[0], stop = S.motion, end = t[t.length - 1];
                return [t.length, S.track.length, t[0][0] === home.lat && t[0][1] === home.lon,
                        end[0] === stop.lat && end[1] === stop.lon];
                """#) as? [Any])
        let counts = drawn.prefix(2).compactMap { $0 as? Int }
        #expect(
            counts.count == 2 && counts[0] < 400 && counts[1] > counts[0] + 200, "drawn and recorded points: \(drawn)")
        #expect(
            drawn.dropFirst(2).compactMap { $0 as? Bool } == [true, true], "starts and ends at the stays: \(drawn)")
        let trip = try #require(
            try await browser.run(##"return document.querySelector("#timeline li.trip").textContent"##) as? String)
        #expect(trip.contains("km"), "\(trip)")
        // A name long enough to wrap (a place's full name often is): each entry's times stay
        // on its own row, not over the next one.
        let inside = try await browser.run(
            #"""
            for (const li of document.querySelectorAll("#timeline li")) {
              const what = li.querySelector(".what"), when = li.querySelector(".when");
              if (!what || !when) continue;
              what.textContent = "Ludwig-Maximilians-Universität München, Geschwister-Scholl-Platz, Maxvorstadt · 14 min";
              const row = li.getBoundingClientRect(), times = when.getBoundingClientRect();
              if (times.top < row.top || times.bottom > row.bottom || times.right > row.right) return false;
            }
            return true
            """#)
        #expect(inside as? Bool == true)

        _ = try await browser.run(##"document.querySelector("#timeline li.trip").click(); return true"##)
        try await browser.waitFor(
            "the trip drawn", #"return Number(document.getElementById("map").dataset.tripPoints) > 100"#)
        // Fitted: every point of the trip is on the canvas, and it spans over half of it.
        let fitted = try #require(
            try await browser.run(
                #"""
                const w = canvas.clientWidth, h = canvas.clientHeight, z = S.view.z;
                const cx = worldX(S.view.lon, z) - w / 2, cy = worldY(S.view.lat, z) - h / 2;
                const xs = S.tripPath.map(p => worldX(p[1], z) - cx), ys = S.tripPath.map(p => worldY(p[0], z) - cy);
                const inside = xs.every(x => x >= 0 && x <= w) && ys.every(y => y >= 0 && y <= h);
                return [inside, (Math.max(...xs) - Math.min(...xs)) / w, (Math.max(...ys) - Math.min(...ys)) / h];
                """#) as? [Any])
        #expect(fitted.first as? Bool == true, "\(fitted)")
        let spans = fitted.dropFirst().compactMap { $0 as? Double }
        #expect(spans.contains { $0 > 0.5 }, "\(fitted)")
        let screenshot = try await browser.screenshot()
        #expect(screenshot.count > 10_000)
        try screenshot.write(
            to: FileManager.default.temporaryDirectory.appendingPathComponent("locationd-timeline-page.png"))
        await browser.quit()
        #expect(try await daemon.stop().status == 0)
    }
}
