import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// DNS rebinding: the server answers only requests for its own names (the bound address,
/// `localhost`, loopback's addresses, `http-allowed-hosts`), so that a page whose name
/// its DNS server points at 127.0.0.1 cannot read the token-less loopback API.
@Suite(.timeLimit(.minutes(5)))
struct HTTPHostTests {
    /// A GET of `/api/v1/last` with `host` as the `Host` header.
    private static func last(port: Int, host: String) async throws -> HTTPTestClient.Answer {
        try await HTTPTestClient(port: port).send(
            Data("GET /api/v1/last HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8))
    }

    /// `Host` read as RFC 9110 and RFC 3986 write it: names in any case, one trailing dot,
    /// a port of digits that must be the one the request came in on, IPv6 in brackets.
    @Test func aHostIsReadAsTheRFCsWriteIt() {
        var configuration = HTTPConfiguration()
        configuration.allowedHosts = ["gps.example.org", "München.example"]
        let loopback = HTTPAllowedHosts(configuration)
        for host in [
            "127.0.0.1:8947", "127.0.0.1", "LOCALHOST", "LocalHost:8947", "localhost.", "localhost.:8947",
            "[::1]:8947", "[::1]", "GPS.Example.ORG", "127.0.0.1:08947", "MÜNCHEN.example", "münchen.example:8947",
        ] {
            #expect(loopback.allows(host, port: 8947), "\(host)")
        }
        for host in [
            "", "evil.test", "127.0.0.1:8948", "127.0.0.1:", "127.0.0.1:+8947", "127.0.0.1:8947x", "localhost..",
            "[::1]:8948", "127.0.0.1.evil.test", "10.0.0.1", "[fe80::1]", "münchen.example:8948",
            "127.0.0.1:99999999999999999999",
        ] {
            #expect(!loopback.allows(host, port: 8947), "\(host)")
        }
        #expect(!loopback.allows(nil, port: 8947))
        configuration.host = "0.0.0.0"
        let everywhere = HTTPAllowedHosts(configuration)
        for host in ["10.0.0.1:8947", "[fe80::1]", "192.168.1.20"] {
            #expect(everywhere.allows(host, port: 8947), "\(host)")
        }
        for host in ["[zz]", "10.0.0.256", "evil.test"] { #expect(!everywhere.allows(host, port: 8947), "\(host)") }
    }

    @Test func onlyTheServersOwnNamesAreAnswered() async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path + "/locationd.conf"
        try "http-allowed-hosts = gps.example.org, Pi.Local\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated", "--config", config])
        let port = try await daemon.httpPort()
        for host in [
            "127.0.0.1:\(port)", "127.0.0.1", "localhost:\(port)", "LOCALHOST", "localhost.", "[::1]:\(port)",
            "gps.example.org:\(port)", "pi.local",
        ] {
            let answer = try await Self.last(port: port, host: host)
            #expect(answer.status == 200, "\(host): \(answer.body)")
        }
        for host in ["evil.test:\(port)", "evil.test", "127.0.0.1.evil.test", "127.0.0.1:\(port + 1)", "", "10.0.0.1"] {
            let answer = try await Self.last(port: port, host: host)
            #expect(answer.status == 421, "\(host): \(answer.body)")
            let message = try #require(try answer.object()["error"] as? String)
            #expect(message.contains("http-allowed-hosts"), "\(message)")
            #expect(!answer.body.contains("lat"))
        }
        #expect(try await daemon.stop().status == 0)
    }

    @Test func aPageRebindingItsNameToLoopbackReadsNothing() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"])
        let port = try await daemon.httpPort()
        // The simulator's first fix, which the refused page must not read.
        let deadline = Date().addingTimeInterval(20)
        while try await !Self.last(port: port, host: "127.0.0.1").body.contains(#""lat""#) {
            guard Date() < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(100))
        }
        // evil.test resolves to 127.0.0.1, as a rebinding DNS server makes it do.
        let browser = try await WebDriver(arguments: [
            "--host-resolver-rules=MAP evil.test 127.0.0.1", "--disable-features=HttpsUpgrades",
        ])
        let readLast = """
            const request = new XMLHttpRequest();
            request.open("GET", "/api/v1/last", false);
            request.send();
            return [request.status, request.responseText];
            """
        try await browser.open("http://evil.test:\(port)/")
        let page = try await browser.run("return document.body.textContent") as? String
        #expect(page?.contains("does not answer for the host 'evil.test:\(port)'") == true, "\(page ?? "")")
        let stolen = try #require(try await browser.run(readLast) as? [Any])
        #expect(stolen.first as? Int == 421, "\(stolen)")
        #expect((stolen.last as? String)?.contains("lat") == false, "\(stolen)")

        try await browser.open("http://127.0.0.1:\(port)/")
        let own = try #require(try await browser.run(readLast) as? [Any])
        #expect(own.first as? Int == 200, "\(own)")
        #expect((own.last as? String)?.contains("\"lat\"") == true, "\(own)")
        await browser.quit()
        #expect(try await daemon.stop().status == 0)
    }

    @Test func aBadAllowedHostIsAConfigurationError() async throws {
        let directory = try TemporaryDirectory()
        let config = directory.path + "/locationd.conf"
        try "http-allowed-hosts = evil/test\n".write(toFile: config, atomically: true, encoding: .utf8)
        let run = try await runLocationd([
            "run", "--data-dir", directory.path + "/data", "--source", "simulated", "--config", config,
        ])
        #expect(run.status == 64)
        #expect(run.stderr.contains("http-allowed-hosts must be host names"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }
}
