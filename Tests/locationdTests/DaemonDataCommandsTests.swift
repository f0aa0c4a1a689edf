import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// `locationd tiles`, `timeline` and `export` asked of a real daemon through its socket print what
/// they print reading the files, also for a user who may reach the socket but not read
/// the data directory; with neither a daemon nor files, one line names both places.
@Suite(.timeLimit(.minutes(5)))
struct DaemonDataCommandsTests {
    /// The drive replayed into a data directory's tile log, and its timeline rebuilt from
    /// the recorded track (an open trip at its end, from the stored tracker).
    static func dataDirectory(in directory: String) async throws -> String {
        let data = directory + "/data"
        let replay = try await runLocationd([
            "replay", Repository.sampleTrack("drive.nmea"), "--speed", "max", "--format", "json", "--data-dir", data,
        ])
        #expect(replay.status == 0, "\(replay.stderr)")
        try FileManager.default.createDirectory(
            atPath: data + "/tracks", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.copyItem(
            atPath: Repository.sampleTrack("drive.nmea"), toPath: data + "/tracks/2026-06-30.nmea")
        #expect(chmod(data + "/tracks/2026-06-30.nmea", 0o600) == 0)
        let rebuild = try await runLocationd([
            "timeline", "--rebuild", "--data-dir", data, "--stay-distance", "30", "--stay-duration", "3",
            "--stay-gap", "60",
        ])
        #expect(rebuild.status == 0, "\(rebuild.stderr)")
        return data
    }

    static let variants: [[String]] = [
        ["tiles"], ["tiles", "--format", "csv"], ["tiles", "--format", "geojson"], ["tiles", "--zoom", "17"],
        ["tiles", "--stats"], ["tiles", "--stats", "--zoom", "14"], ["tiles", "--zoom", "5"],
        ["timeline", "2026-06-30"], ["timeline", "--from", "2026-06-30", "--to", "2026-07-01", "--json"],
        ["timeline", "--from", "2026-06-30T23:55:10Z", "--to", "2026-07-01", "--geojson"],
        ["timeline", "--from", "2026-06-30", "--to", "2026-07-01", "--gpx"],
        ["export", "2026-06-30"], ["export", "--from", "2026-06-30T23:56:00Z", "--to", "2026-07-02"],
        ["export", "--from", "2026-01-01", "--to", "2026-01-02"],
    ]

    @Test func theSocketGivesWhatTheFilesGiveToAnyoneItLetsIn() async throws {
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.path, 0o711) == 0)
        let data = try await Self.dataDirectory(in: directory.path)
        let runtime = directory.path + "/run"
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o750])
        let socket = runtime + "/control.sock"
        // gpsd where none listens: no fix changes the tile log or the timeline while the test reads them.
        let daemon = try await DaemonProcess(
            dataDirectory: data, arguments: ["--source", "gpsd", "--gpsd", "127.0.0.1:9", "--socket-mode", "0660"],
            socketPath: socket)
        // A user of the socket's group who may not read the data directory (0700), when the tests run as root.
        let member =
            getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--groups=\(getgid())"] : []
        let memberBinary = member.isEmpty ? "" : try await locationdCopy(in: directory.path)
        for variant in Self.variants {
            let files = try await runLocationd(variant + ["--data-dir", data])
            #expect(files.status == 0, "\(variant): \(files.stderr)")
            #expect(!files.stdout.isEmpty || variant == ["tiles", "--zoom", "5"])
            let asked = try await runLocationd(variant + ["--socket", socket])
            #expect(asked.status == 0 && asked.stderr.isEmpty, "\(variant): \(asked.stderr)")
            #expect(asked.stdout == files.stdout, "\(variant)")
            guard !member.isEmpty else { continue }
            let byMember = try await runProgram(
                member[0], member.dropFirst() + [memberBinary] + variant + ["--socket", socket])
            #expect(byMember.status == 0, "\(variant): \(byMember.stderr)")
            #expect(byMember.stdout == files.stdout, "\(variant)")
        }
        let listed = try await runLocationd(["tiles", "--socket", socket])
        #expect(listed.stdout.split(separator: "\n").count > 10)
        let timeline = try await runLocationd(["timeline", "2026-06-30", "--socket", socket])
        // The open trip ends at its last fix, not "now": the daemon has had no fix since.
        #expect(timeline.stdout.contains(" stay ") && timeline.stdout.contains("*  trip"), "\(timeline.stdout)")
        #expect(timeline.stdout.contains("* still open at its last fix"), "\(timeline.stdout)")

        if !member.isEmpty {
            // The same user reading the files is refused: the answers above came through the socket.
            let refused = try await runProgram(
                member[0], member.dropFirst() + [memberBinary, "tiles", "--data-dir", data])
            #expect(refused.status != 0 && refused.stdout.isEmpty, "\(refused.stdout)")
            let modes = try FileManager.default.subpathsOfDirectory(atPath: data).map { path in
                (
                    path,
                    try FileManager.default.attributesOfItem(atPath: data + "/" + path)[.posixPermissions] as? Int ?? 0
                )
            }
            #expect(modes.allSatisfy { $0.1 & 0o007 == 0 }, "\(modes)")
        }
        #expect(try await daemon.stop().status == 0)
    }

    /// Neither a daemon nor files: one line that names the system's socket and the user's
    /// own, what to start, and why the files cannot be read, with the files' exit status.
    @Test(
        .enabled(if: getuid() == 0, "runs the commands as another user (setpriv), which needs root"),
        .enabled(
            if: !FileManager.default.fileExists(atPath: DaemonSockets.systemPath),
            "a system daemon runs here, so there is always a daemon to ask"))
    func withNeitherADaemonNorFilesOneLineNamesBothPlaces() async throws {
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.path, 0o777) == 0)
        let own = directory.path + "/state/locationd"
        let binary = try await locationdCopy(in: directory.path)
        for command in [["tiles"], ["timeline", "--json"], ["export", "2026-06-30"]] {
            let run = try await runProgram(
                "/usr/bin/setpriv",
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env",
                    "XDG_STATE_HOME=\(directory.path)/state",
                    binary,
                ] + command)
            #expect(run.status == 66, "\(command): \(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(
                run.stderr.hasPrefix(
                    "locationd: no daemon answers (the system's on \(DaemonSockets.systemPath), nor yours on \(own)/control.sock); start one: sudo systemctl start locationd or locationd run; nor can the files be read: "
                ), "\(run.stderr)")
            // What could not be read is the user's own data directory.
            #expect(run.stderr.components(separatedBy: "be read: ").last?.contains(own) == true, "\(run.stderr)")
        }
    }
}
