import Foundation
import LocationState
import LocationTestSupport
import LocationUplinks
import Testing

/// The page's uplinks panel, in a real headless browser, against the daemon's HTTP server
/// over states the test holds (``PageServer``): hidden without targets; with them, a row
/// per target with its state, backlog, newest fix sent and the server's words, which
/// follows the states as they change; the server's words are shown as text, never as markup.
@Suite(.timeLimit(.minutes(5)))
struct HTTPPageUplinksTests {
    static func status(_ text: String) throws -> UplinkStatus {
        UplinkStatus(target: try UplinkTarget.parse(text, origin: "test", visible: false, hostName: "pi"))
    }

    @Test func withoutTargetsThePanelIsHidden() async throws {
        let directory = try TemporaryDirectory()
        let page = try await PageServer(directory: directory.path)
        defer { page.stop() }
        let browser = try await WebDriver()
        try await browser.open(page.url)
        try await browser.waitFor(
            "the uplinks read", #"return document.getElementById("uplinks").dataset.uplinks === "0""#)
        #expect(try await browser.run(#"return document.getElementById("uplinksPanel").hidden"#) as? Bool == true)
        await browser.quit()
    }

    @Test func eachTargetsStateIsShownAndFollowed() async throws {
        let directory = try TemporaryDirectory()
        let page = try await PageServer(directory: directory.path)
        defer { page.stop() }
        let fixTime = Date(timeIntervalSince1970: 1_795_000_000)
        var traccar = try Self.status("osmand=http://traccar.local:5055/ name=traccar")
        traccar.lastDeliveredFix = fixTime
        traccar.lastAnswer = "HTTP 200"
        traccar.delivered = 12
        var dawarich = try Self.status(
            "overland=https://dawarich.local/api/v1/overland/batches name=dawarich")
        dawarich.state = .retrying
        dawarich.backlog = 40
        dawarich.lastAnswer = "HTTP 502: <img src=x onerror=S.injected=1>"
        dawarich.nextTry = fixTime.addingTimeInterval(90)
        page.uplinks.withLock { $0 = [traccar, dawarich] }

        let browser = try await WebDriver()
        try await browser.open(page.url)
        try await browser.waitFor(
            "two uplink rows", #"return document.getElementById("uplinks").dataset.uplinks === "2""#)
        #expect(try await browser.run(#"return document.getElementById("uplinksPanel").hidden"#) as? Bool == false)
        let states =
            try await browser.run(
                ##"return Array.from(document.querySelectorAll("#uplinks tr")).map(r => r.dataset.state || "")"##)
            as? [String]
        #expect(states == ["delivering", "", "retrying", ""])
        let lines = try #require(
            try await browser.run(
                ##"return Array.from(document.querySelectorAll("#uplinks tr")).map(r => r.textContent)"##)
                as? [String])
        try #require(lines.count == 4)
        // The newest fix sent, as the timeline shows a time of another day: the date, then HH:MM.
        let iso = UTCCalendar.iso8601(fixTime)
        #expect(lines[0] == "traccardelivering0" + iso.prefix(10) + " " + iso.dropFirst(11).prefix(5))
        #expect(lines[1] == "osmand · HTTP 200")
        #expect(lines[2] == "dawarichretrying40–")
        #expect(lines[3].hasPrefix("overland · HTTP 502: <img src=x onerror=S.injected=1>, next try "))
        #expect(
            try await browser.run(##"return document.querySelectorAll("#uplinks img").length + (S.injected ? 1 : 0)"##)
                as? Int == 0)

        // The server comes back: the page follows within its 5 s reads.
        dawarich.state = .delivering
        dawarich.backlog = 0
        dawarich.lastAnswer = "HTTP 201: {\"result\":\"ok\"}"
        dawarich.nextTry = nil
        page.uplinks.withLock { $0 = [traccar, dawarich] }
        try await browser.waitFor(
            "the second target delivering again",
            ##"return Array.from(document.querySelectorAll("#uplinks tr.target")).every(r => r.dataset.state === "delivering")"##
        )
        let answer =
            try await browser.run(##"return document.querySelectorAll("#uplinks tr.answer")[1].textContent"##)
            as? String
        #expect(answer == "overland · HTTP 201: {\"result\":\"ok\"}")
        await browser.quit()
    }
}
