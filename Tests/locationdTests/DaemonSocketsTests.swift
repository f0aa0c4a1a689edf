import ArgumentParser
import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// Which daemon `last` and `regions` ask: the system daemon's socket first, then the
/// user's own; `--socket` or `--data-dir` name one place only.
@Suite(.timeLimit(.minutes(10)))
struct DaemonSocketsTests {
    static func option(_ arguments: [String]) throws -> DataDirectoryOption {
        try DataDirectoryOption.parse(arguments)
    }

    /// Without flags: the system's socket, then control.sock in the default data directory.
    @Test func withoutFlagsTheSystemDaemonComesFirst() throws {
        let sockets = DaemonSockets(socket: nil, dataDirectory: try Self.option([]), systemPath: "/s/control.sock")
        #expect(sockets.places.map(\.path) == ["/s/control.sock", try Self.option([]).url.path + "/control.sock"])
        #expect(sockets.places.map(\.isSystem) == [true, false])
        #expect(
            sockets.nobodyAnswers.hasPrefix(
                "no daemon answers (the system's on /s/control.sock, nor yours on "))
        #expect(sockets.nobodyAnswers.hasSuffix("start one: sudo systemctl start locationd or locationd run"))
    }

    /// `--data-dir` and `--socket` each name the one place to ask.
    @Test func aFlagNamesThePlace() throws {
        let data = DaemonSockets(socket: nil, dataDirectory: try Self.option(["--data-dir", "/d"]))
        #expect(data.places == [.init(path: "/d/control.sock", isSystem: false)])
        let socket = DaemonSockets(socket: "/x.sock", dataDirectory: try Self.option(["--data-dir", "/d"]))
        #expect(socket.places == [.init(path: "/x.sock", isSystem: false)])
        #expect(socket.nobodyAnswers == "no daemon answers (yours on /x.sock); start one: locationd run")
    }

    /// A daemon on the system's socket answers `last` run without flags; with none there,
    /// nothing answers and `ask` says so with nil.
    @Test func theSystemDaemonAnswers() async throws {
        let directory = try TemporaryDirectory()
        let runtime = directory.path + "/run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: false)
        let system = runtime + "/control.sock"
        let nobody = DaemonSockets(
            socket: nil, dataDirectory: try Self.option(["--data-dir", directory.path + "/none"]), systemPath: system)
        #expect(try nobody.ask("?VERSION;") == nil)

        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated", "--socket-mode", "0660"],
            socketPath: system)
        var info = stat()
        #expect(lstat(system, &info) == 0 && info.st_mode & 0o777 == 0o660)
        let sockets = DaemonSockets(socket: nil, dataDirectory: try Self.option([]), systemPath: system)
        let answer = try #require(try sockets.ask("?VERSION;"))
        #expect(answer.path == system)
        #expect(answer.line.contains(#""class":"VERSION""#))
        #expect(try await daemon.stop().status == 0)
    }

    /// The socket's mode: 0600 or 0660, never open to other users.
    @Test func socketModeIsOwnerOrGroupOnly() async throws {
        try await expectRunRefuses(["--socket-mode", "0666"], saying: "socket-mode must be 0600 (owner only) or 0660")
    }

    /// `--version` prints the version; a format asked of it is refused in one line.
    @Test func versionAndAnUnknownVersionFormat() async throws {
        let version = try await runLocationd(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout == LocationdVersion.current + "\n")
        #expect(try await runLocationd(["last", "--version"]).stdout == LocationdVersion.current + "\n")
        for arguments in [["--version=json"], ["--version", "--json"], ["--version", "json"]] {
            let refused = try await runLocationd(arguments)
            #expect(refused.status == 64, "\(arguments)")
            #expect(refused.stdout.isEmpty)
            #expect(
                refused.stderr.hasPrefix("locationd: --version") && refused.stderr.split(separator: "\n").count == 1)
        }
    }
}
