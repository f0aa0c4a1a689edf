import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// The bearer token: required once configured, compared in constant time, and
/// required by any address that is not loopback.
@Suite(.timeLimit(.minutes(5)))
struct HTTPTokenTests {
    @Test func aConfiguredTokenIsRequiredByEveryPath() async throws {
        let directory = try TemporaryDirectory()
        let token = "s3cret-token-0123456789abcdef"
        let tokenFile = directory.path + "/token"
        try "\(token)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let config = directory.path + "/locationd.conf"
        try "http-token-file = \(tokenFile)\n".write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated", "--config", config])
        // After the URL is logged (httpPort waits for it): the socket answers before.
        let client = HTTPTestClient(port: try await daemon.httpPort())
        #expect(daemon.stderr.contains("(bearer token required)"))
        for path in ["/", "/api/v1/last", "/api/v1/events", "/nowhere"] {
            let answer = try await client.get(path)
            #expect(answer.status == 401, "\(path)")
            #expect(
                try answer.object()["error"] as? String == "a bearer token is required (Authorization: Bearer TOKEN)")
        }
        let wrong = try await client.get(
            "/api/v1/last", headers: ["Authorization": "Bearer s3cret-token-0123456789abcdeX"])
        #expect(wrong.status == 401)
        #expect(try wrong.object()["error"] as? String == "the bearer token is not valid")
        let short = try await client.get("/api/v1/last", headers: ["Authorization": "Bearer s3cret"])
        #expect(short.status == 401)
        #expect(try await client.get("/api/v1/last", headers: ["Authorization": "Bearer \(token)"]).status == 200)
        #expect(try await client.get("/api/v1/status?access_token=\(token)").status == 200)
        #expect(try await client.get("/?access_token=\(token)").status == 200)
        #expect(try await client.get("/nowhere?access_token=\(token)").status == 404)
        #expect(try await daemon.stop().status == 0)
    }

    @Test(arguments: [
        (["--http", "0.0.0.0:0"], "needs a bearer token: set http-token-file"),
        (["--http", "[::]:8947"], "needs a bearer token: set http-token-file"),
        (["--http", "127.0.0.1:70000"], "http port must be a number from 1 to 65535"),
        (["--http", "::1"], "write an IPv6 http address in brackets"),
    ])
    func anAddressBeyondLoopbackNeedsAToken(arguments: [String], message: String) async throws {
        try await expectRunRefuses(arguments, saying: message)
    }

    @Test(arguments: [
        ("abc", "abc", true), ("abc", "abd", false), ("", "abc", false), ("abcd", "abc", false),
        ("ab", "abc", false),
    ])
    func comparison(offered: String, expected: String, equal: Bool) {
        #expect(HTTPGuard.constantTimeEqual(Array(offered.utf8), Array(expected.utf8)) == equal)
    }
}
