import Foundation
import LocationState
import Testing

/// A real headless Chromium driven through `chromedriver` (Debian's chromium-driver)
/// with the W3C WebDriver protocol: open a page, run a script in it, take a screenshot.
///
/// Unlike `chromium --dump-dom`, which dumps when the page has loaded (before its
/// script fetched anything) or, with a virtual time budget, waits for every fetch to
/// end (an event stream never does), a session lets a test wait for what the page
/// shows, as a person looking at it would.
package final class WebDriver: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` set in init; ChildProcess
    // is safe for the calls made on it later (terminate, isRunning, waitUntilExit).
    private let driver: ChildProcess
    private let client: HTTPTestClient
    private let session: String
    private let profile: String

    /// Starts chromedriver on a free port and a headless Chromium session with a window of
    /// `width`×`height`, and Chromium's `arguments` besides the usual ones.
    package init(width: Int = 1200, height: Int = 800, arguments: [String] = []) async throws {
        let port = try GPSFake.freeLoopbackPort()
        profile = NSTemporaryDirectory() + "locationd-chromium-" + UUID().uuidString.prefix(8)
        driver = try ChildProcess("/usr/bin/chromedriver", ["--port=\(port)"])
        // chromedriver answers a command when Chromium has done it: a session once Chromium
        // has started, a navigation once the page has loaded; on a loaded machine a start
        // took longer than the usual 30 s.
        client = HTTPTestClient(port: port, receiveTimeout: 180)
        let chromiumArguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
                "--hide-scrollbars", "--window-size=\(width),\(height)", "--user-data-dir=\(profile)",
            ] + arguments
        try await waitUntil(seconds: 20) { (try? connectTCP(port: port)) != nil }
        let answer = try await client.request(
            "POST", "/session",
            json: [
                "capabilities": [
                    "alwaysMatch": [
                        "browserName": "chrome",
                        "goog:chromeOptions": [
                            "binary": "/usr/bin/chromium",
                            "args": chromiumArguments,
                        ],
                    ]
                ]
            ])
        let value = try answer.object()["value"] as? [String: Any]
        session = try #require(
            value?["sessionId"] as? String, "chromedriver made no session: \(answer.body.prefix(500))")
    }

    deinit {
        quitBlocking()
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// Ends the browser session (chromedriver closes Chromium) and chromedriver.
    package func quit() async {
        await offThePool { [self] in quitBlocking() }
    }

    /// Ends the session, then kills chromedriver: SIGKILL, since a child of a test thread may
    /// have SIGTERM blocked (it inherits the thread's signal mask), and ignore it.
    private func quitBlocking() {
        guard driver.isRunning else { return }
        _ = try? HTTPTestClient.exchange(
            Data("DELETE /session/\(session) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8),
            port: client.port, receiveTimeout: client.receiveTimeout)
        kill(driver.processIdentifier, SIGKILL)
        driver.waitUntilExit()
    }

    /// Opens `url` and waits until the page has loaded.
    package func open(_ url: String) async throws {
        let answer = try await client.request("POST", "/session/\(session)/url", json: ["url": url])
        #expect(answer.status == 200, "\(answer.body.prefix(300))")
    }

    /// Runs `script` (a function body that `return`s a JSON value) in the page.
    package func run(_ script: String) async throws -> Any? {
        let answer = try await client.request(
            "POST", "/session/\(session)/execute/sync", json: ["script": script, "args": [Any]()])
        #expect(answer.status == 200, "\(answer.body.prefix(300))")
        return try answer.object()["value"]
    }

    /// Evaluates `script` until it returns `true`, failing the test after `seconds`.
    ///
    /// The bound is generous: with the suite's other browsers and servers on both cores,
    /// a page's first answer once took more than 30 s.
    package func waitFor(_ what: String, seconds: Double = 90, _ script: String) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try await run(script) as? Bool != true {
            guard Date() < deadline else {
                Issue.record("the page did not show \(what) within \(seconds) s")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(200))
        }
    }

    /// A screenshot of the window, as PNG.
    package func screenshot() async throws -> Data {
        let answer = try await client.request("GET", "/session/\(session)/screenshot")
        let base64 = try #require(try answer.object()["value"] as? String)
        return try #require(Data(base64Encoded: base64))
    }
}
