import Foundation
import LocationState
import LocationStores
import LocationTestSupport
import LocationTimeline
import Testing

@testable import locationd

/// The page and the motion, in a real headless browser, against the daemon's HTTP server
/// over states the test holds (``PageServer``): while the device is stopped the map stays
/// still (the marker at the stay's centroid, no track from the jitter, no panning) and
/// "parked for" and the open stay run with the wall clock; once the fix is stale they say
/// what is known, up to the last fix; moving again, the track goes on from the stay.
@Suite(.timeLimit(.minutes(5)))
struct HTTPPageMotionTests {
    static let place = (lat: 48.137, lon: 11.575)

    static func fix(_ time: Date, lat: Double, lon: Double, speed: Double = 0.2) -> Location {
        Location(
            time: time, mode: .threeD, lat: lat, lon: lon, altMSL: 520, speed: speed, eph: 9, satellitesUsed: 9,
            source: .gpsd, device: "/dev/ttyACM0")
    }

    /// A time as the page's timeline shows it on the day of `shown`: HH:MM, UTC, after the
    /// date when that is another day.
    static func clock(_ date: Date, on shown: Date) -> String {
        let (iso, day) = (UTCCalendar.iso8601(date), UTCCalendar.iso8601(shown).prefix(10))
        return (iso.hasPrefix(day) ? "" : iso.prefix(10) + " ") + iso.dropFirst(11).prefix(5)
    }

    /// The minutes in "parked for N min" or "parked for at least N min".
    static func minutes(_ text: String) -> Int? {
        Int(text.split(separator: " ").dropLast().last ?? "")
    }

    /// The simulator standing in while the device is parked: the real motion stays
    /// `stopped` (simulated fixes are no motion), and the map follows the simulator's fix
    /// under its badge instead of holding the marker at the stay.
    @Test func aSimulatedFixIsNotHeldStillByTheRealMotion() async throws {
        let directory = try TemporaryDirectory()
        let page = try await PageServer(directory: directory.path, everyDay: true)
        defer { page.stop() }
        let now = Date()
        let since = now.addingTimeInterval(-600)
        page.motion ~> .stopped(since: since, latitude: Self.place.lat, longitude: Self.place.lon)
        page.status ~> .live(.simulated, lastFix: now)
        var simulated = Self.fix(now, lat: Self.place.lat + 0.005, lon: Self.place.lon)
        simulated.source = .simulated
        page.deviceLocation ~> simulated
        let browser = try await WebDriver()
        try await browser.open(page.url)
        try await browser.waitFor(
            "the simulated badge", #"return document.getElementById("badge").dataset.badge === "simulated""#)
        try await browser.waitFor("the motion", #"return S.motion && S.motion.motion === "stopped""#)
        let marker = String(format: "%.7f,%.7f", Self.place.lat + 0.005, Self.place.lon)
        try await browser.waitFor(
            "the marker at the simulated fix",
            #"draw(); return document.getElementById("map").dataset.marker === "\#(marker)""#)
    }

    @Test func aParkedDeviceStaysStillAndItsTimesFollowTheFreshness() async throws {
        let directory = try TemporaryDirectory()
        let page = try await PageServer(directory: directory.path, everyDay: true)
        defer { page.stop() }
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let tiles = try TileDatabase.open(at: URL(fileURLWithPath: directory.path + "/" + TileDatabase.fileName))
        let stopTile = Tile(latitude: Self.place.lat, longitude: Self.place.lon, zoom: 17)
        try tiles.add([
            TileRecord(
                tile: Tile(latitude: 48.130, longitude: 11.540, zoom: 17), firstSeen: now, lastSeen: now, visits: 1),
            TileRecord(tile: stopTile, firstSeen: now, lastSeen: now, visits: 1),
        ])
        // A stay at home, a trip, and a stop that began 5 min before the last fix, which came 2 min ago.
        let since = now.addingTimeInterval(-420)
        // The day the page shows: the first fix's.
        let shownDay = now.addingTimeInterval(-120)
        let home = Stay(
            start: now.addingTimeInterval(-2400), end: now.addingTimeInterval(-1800), latitude: 48.130,
            longitude: 11.540, radius: 5, fixes: 600)
        let trip = Trip(
            start: home.end, end: since, from: home.start, to: since, distance: 3100, maxSpeed: 14, fixes: 1380)
        let stop = Stay(
            start: since, end: now.addingTimeInterval(-120), latitude: Self.place.lat, longitude: Self.place.lon,
            radius: 4, fixes: 300, isOpen: true)
        page.entries.withLock { $0 = [.stay(home), .trip(trip), .stay(stop)] }
        page.motion ~> .stopped(since: since, latitude: Self.place.lat, longitude: Self.place.lon)
        page.status ~> .live(.gpsd, lastFix: now.addingTimeInterval(-120))
        page.deviceLocation
            ~> Self.fix(now.addingTimeInterval(-120), lat: Self.place.lat + 0.00002, lon: Self.place.lon)

        let browser = try await WebDriver()
        try await browser.open(page.url)
        try await browser.waitFor(
            "the day's three entries", #"return document.getElementById("timeline").dataset.entries === "3""#)
        try await browser.waitFor(
            "parked for …", #"return document.getElementById("parked").dataset.motion === "stopped""#)
        try await browser.waitFor("the map", #"return document.getElementById("map").dataset.tilesDrawn === "2""#)
        // Live: parked since the stop began until now (7 min or more), not until the fix (5 min).
        let parked = try #require(
            try await browser.run(#"return document.getElementById("parked").textContent"#) as? String)
        #expect(parked.hasPrefix("parked for ") && !parked.contains("at least"), "\(parked)")
        #expect((Self.minutes(parked) ?? 0) >= 7, "\(parked)")
        let open = try #require(
            try await browser.run(##"return document.querySelector("#timeline li.open .when").textContent"##) as? String
        )
        #expect(open == Self.clock(since, on: shownDay) + "–now", "\(open)")

        // Jitter while stopped: the marker stays at the centroid, the track and the view do not move.
        let map = #"""
            const c = document.getElementById("map");
            return [c.dataset.marker || "", c.dataset.trackPoints, JSON.stringify(S.view)];
            """#
        let before = try #require(try await browser.run(map) as? [String])
        #expect(before[0] == String(format: "%.7f,%.7f", Self.place.lat, Self.place.lon), "\(before)")
        var last = now
        for second in 0..<15 {
            last = Date().addingTimeInterval(Double(second) / 10)
            let angle = Double(second) * 2.4
            page.deviceLocation
                ~> Self.fix(
                    last, lat: Self.place.lat + 0.00004 * cos(angle), lon: Self.place.lon + 0.00006 * sin(angle))
        }
        try await browser.waitFor(
            "the last jitter fix", #"return S.fix.time === "\#(UTCCalendar.iso8601(last))""#)
        _ = try await browser.run("draw(); return true")
        let after = try #require(try await browser.run(map) as? [String])
        #expect(after == before)
        // The jitter crossed into the next tile, and the page reloads the tiles (as it does each minute): the map stays.
        let next = try #require(Tile(zoom: 17, x: stopTile.x + 1, y: stopTile.y))
        try tiles.add([TileRecord(tile: next, firstSeen: last, lastSeen: last, visits: 1)])
        _ = try await browser.run("loadStats().then(loadTiles); return true")
        try await browser.waitFor("the new tile", #"return document.getElementById("map").dataset.tilesDrawn === "3""#)
        #expect(try await browser.run(map) as? [String] == before)
        // The panel still shows the raw fix, as `locationd last` does.
        let shown = try #require(
            try await browser.run(#"return Number(document.getElementById("lat").dataset.value)"#) as? Double)
        #expect(shown != Self.place.lat)

        // Stale: parked for at least as long as the fixes tell, the open stay known until the last fix.
        page.deviceLocation ~> nil
        page.status ~> .stale(.gpsd, lastFix: last)
        try await browser.waitFor(
            "the stale badge", #"return document.getElementById("badge").dataset.badge === "stale""#)
        let atLeast = try #require(
            try await browser.run(#"return document.getElementById("parked").textContent"#) as? String)
        #expect(atLeast.hasPrefix("parked for at least "), "\(atLeast)")
        let known = try #require(
            try await browser.run(##"return document.querySelector("#timeline li.open .when").textContent"##) as? String
        )
        #expect(
            known == "since \(Self.clock(since, on: shownDay)), last fix \(Self.clock(last, on: shownDay))", "\(known)")

        // Moving again: the stop closes, the track goes on from its centroid and the marker follows the fixes.
        let left = Date()
        page.entries.withLock {
            $0[2] = .stay(
                Stay(
                    start: since, end: left, latitude: Self.place.lat, longitude: Self.place.lon, radius: 4,
                    fixes: 320))
            $0.append(
                .trip(Trip(start: left, end: left, from: since, distance: 0, maxSpeed: 0, fixes: 1, isOpen: true)))
        }
        page.status ~> .live(.gpsd, lastFix: left)
        page.motion ~> .moving
        try await browser.waitFor("moving", #"return document.getElementById("parked").dataset.motion === "moving""#)
        var lon = Self.place.lon
        for second in 1...10 {
            lon += 0.0003
            page.deviceLocation
                ~> Self.fix(left.addingTimeInterval(Double(second)), lat: Self.place.lat, lon: lon, speed: 20)
        }
        try await browser.waitFor(
            "the drive drawn", #"return document.getElementById("map").dataset.trackPoints === "11""#)
        let track = try #require(try await browser.run("draw(); return drawnTrack()") as? [[Double]])
        #expect(track.first == [Self.place.lat, Self.place.lon], "\(track.prefix(2))")
        let marker = try #require(
            try await browser.run(#"return document.getElementById("map").dataset.marker"#) as? String)
        #expect(marker == String(format: "%.7f,%.7f", Self.place.lat, lon))
        await browser.quit()
    }

    @Test func aStayBegunOnAnEarlierDayShowsItsDate() async throws {
        let directory = try TemporaryDirectory()
        let page = try await PageServer(directory: directory.path, everyDay: true)
        defer { page.stop() }
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        // Parked for two days and an hour; the last fix a minute ago.
        let since = now.addingTimeInterval(-(49 * 3600))
        let last = now.addingTimeInterval(-60)
        let stay = Stay(
            start: since, end: last, latitude: Self.place.lat, longitude: Self.place.lon, radius: 4, fixes: 90_000,
            isOpen: true, name: "Café <b>Nord</b>")
        page.entries.withLock { $0 = [.stay(stay)] }
        page.motion ~> .stopped(since: since, latitude: Self.place.lat, longitude: Self.place.lon)
        page.status ~> .live(.gpsd, lastFix: last)
        page.deviceLocation ~> Self.fix(last, lat: Self.place.lat, lon: Self.place.lon)

        let browser = try await WebDriver()
        try await browser.open(page.url)
        try await browser.waitFor("the open stay", ##"return document.querySelector("#timeline li.open") !== null"##)
        let when = ##"return document.querySelector("#timeline li.open .when").textContent"##
        let live = try #require(try await browser.run(when) as? String)
        let begun = String(UTCCalendar.iso8601(since).prefix(16)).replacingOccurrences(of: "T", with: " ")
        #expect(live == begun + "–now", "\(live)")
        let what = try #require(
            try await browser.run(##"return document.querySelector("#timeline li.open .what").textContent"##) as? String
        )
        // The stay by its name, as text: markup in a name is never markup on the page.
        #expect(what.hasPrefix("Café <b>Nord</b> · 49 h "), "\(what)")

        page.deviceLocation ~> nil
        page.status ~> .stale(.gpsd, lastFix: last)
        try await browser.waitFor(
            "the stale badge", #"return document.getElementById("badge").dataset.badge === "stale""#)
        let stale = try #require(try await browser.run(when) as? String)
        #expect(stale == "since \(begun), last fix \(Self.clock(last, on: last))", "\(stale)")
        await browser.quit()
    }

    /// The places, most time first, by name as text (markup in a name stays text), with
    /// home or work, visits and total time; a click centres the map on one. Parked at a
    /// named place, "parked for" says where.
    @Test func thePlacesAreListedAndParkedSaysWhere() async throws {
        let directory = try TemporaryDirectory()
        let page = try await PageServer(directory: directory.path, everyDay: true)
        defer { page.stop() }
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let first = UTCCalendar.iso8601(now.addingTimeInterval(-30 * 86_400))
        let last = UTCCalendar.iso8601(now.addingTimeInterval(-3600))
        page.places.withLock {
            $0 = [
                PlacesAnswer(
                    id: 2, name: "<i>Home</i>", label: "home", visits: 30, seconds: 30 * 43_200, first: first,
                    last: last, lat: Self.place.lat, lon: Self.place.lon),
                PlacesAnswer(
                    id: 5, name: nil, label: nil, visits: 1, seconds: 5_400, first: last, last: last, lat: -33.9,
                    lon: 151.2),
            ]
        }
        let since = now.addingTimeInterval(-600)
        page.motion ~> .stopped(since: since, latitude: Self.place.lat, longitude: Self.place.lon, name: "<i>Home</i>")
        page.status ~> .live(.gpsd, lastFix: now)
        page.deviceLocation ~> Self.fix(now, lat: Self.place.lat, lon: Self.place.lon)

        let browser = try await WebDriver()
        try await browser.open(page.url)
        try await browser.waitFor("the places", ##"return document.getElementById("places").dataset.places === "2""##)
        let rows = try #require(
            try await browser.run(
                ##"return Array.from(document.querySelectorAll("#places li")).map(li => li.textContent)"##)
                as? [String])
        #expect(rows == ["<i>Home</i>home30 visits · 360 h 0 min", "Place 51 visit · 1 h 30 min"], "\(rows)")
        try await browser.waitFor(
            "parked at the place",
            ##"return document.getElementById("parked").textContent.endsWith(" at <i>Home</i>")"##)

        // A click on the second centres the map on it.
        _ = try await browser.run(##"document.querySelector('#places li[data-id="5"]').click(); return true"##)
        try await browser.waitFor(
            "the map on the place",
            ##"return Math.abs(S.view.lat + 33.9) < 1e-6 && Math.abs(S.view.lon - 151.2) < 1e-6"##)
        await browser.quit()
    }
}
