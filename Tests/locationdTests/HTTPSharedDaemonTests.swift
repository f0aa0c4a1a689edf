import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// A daemon whose control socket its group shares (`socket-mode 0660`, the packaged
/// service) keeps the socket's promise over HTTP: every request needs the daemon's token,
/// even on loopback, and `locationd page` gives a member the page's URL with it.
@Suite(.timeLimit(.minutes(5)))
struct HTTPSharedDaemonTests {
    @Test func theSharedDaemonsPageNeedsTheTokenThatLocationdPageGives() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let socket = directory.path + "/control.sock"
        let arguments = ["--source", "simulated", "--socket-mode", "0660"]
        let token = try await Self.checkTheTokenIsNeeded(data: data, socket: socket, arguments: arguments)
        // The token is the daemon's alone on disk, and stays the same across a restart, so a
        // bookmarked page keeps working.
        var info = stat()
        #expect(lstat(data + "/http.token", &info) == 0 && info.st_mode & 0o777 == 0o600)
        let daemon = try await DaemonProcess(dataDirectory: data, arguments: arguments, socketPath: socket)
        let client = HTTPTestClient(port: try await daemon.httpPort())
        #expect(try await client.get("/api/v1/last?access_token=\(token)").status == 200)
        #expect(try await client.get("/api/v1/last").status == 401)
        #expect(try await daemon.stop().status == 0)
    }

    /// Starts the shared daemon, checks that every path needs the token and that `locationd
    /// page` gives it, stops the daemon; returns the token.
    private static func checkTheTokenIsNeeded(data: String, socket: String, arguments: [String]) async throws
        -> String
    {
        let daemon = try await DaemonProcess(dataDirectory: data, arguments: arguments, socketPath: socket)
        let port = try await daemon.httpPort()
        let client = HTTPTestClient(port: port)
        for path in ["/", "/api/v1/last", "/api/v1/timeline", "/api/v1/tracks", "/api/v1/events"] {
            #expect(try await client.get(path).status == 401, "GET \(path) without the token")
        }

        let page = try await runLocationd(["page", "--socket", socket])
        #expect(page.status == 0, "\(page.stderr)")
        let url = page.stdout.trimmingCharacters(in: .newlines)
        let prefix = "http://127.0.0.1:\(port)/?access_token="
        #expect(url.hasPrefix(prefix), "\(url)")
        let token = String(url.dropFirst(prefix.count))
        #expect(token.count >= 32 && token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(try await client.get("/?access_token=\(token)").status == 200)
        #expect(try await client.get("/api/v1/last", headers: ["Authorization": "Bearer \(token)"]).status == 200)
        let api = try await runLocationd(["page", "--socket", socket, "/api/v1/last"])
        #expect(api.stdout == "http://127.0.0.1:\(port)/api/v1/last?access_token=\(token)\n", "\(api.stderr)")
        try await expectNoPageForOthers(socket: socket)
        #expect(try await daemon.stop().status == 0)
        return token
    }

    /// A user outside the socket's group (nobody, running a copy of the binary it can
    /// reach) gets no URL and no token from `locationd page`: one line, exit 69. Only as root.
    private static func expectNoPageForOthers(socket: String) async throws {
        guard getuid() == 0 else { return }
        let directory = (socket as NSString).deletingLastPathComponent
        let binary = try await locationdCopy(in: directory, named: "locationd-copy")
        let other = try await runProgram(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "page", "--socket", socket])
        #expect(other.status == 69, "\(other.stderr)")
        #expect(other.stdout.isEmpty)
        #expect(other.stderr == "locationd: \(socket): permission denied; run as the daemon's user\n")
    }

    /// A daemon of one's own (socket 0600) serves loopback without a token, as before; `page`
    /// gives its plain URL; with HTTP off, `page` says so.
    @Test func anOwnDaemonsPageIsItsPlainURL() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let daemon = try await DaemonProcess(dataDirectory: data, arguments: ["--source", "simulated"])
        let port = try await daemon.httpPort()
        let page = try await runLocationd(["page", "--data-dir", data])
        #expect(page.stdout == "http://127.0.0.1:\(port)/\n", "\(page.stderr)")
        #expect(try await HTTPTestClient(port: port).get("/api/v1/last").status == 200)
        #expect(try await daemon.stop().status == 0)

        let off = try await DaemonProcess(dataDirectory: data, arguments: ["--source", "simulated", "--http", "off"])
        let none = try await runLocationd(["page", "--data-dir", data])
        #expect(none.status == 69)
        #expect(none.stderr == "locationd: the daemon on \(data)/control.sock serves no HTTP (http = off)\n")
        #expect(try await off.stop().status == 0)
    }
}
