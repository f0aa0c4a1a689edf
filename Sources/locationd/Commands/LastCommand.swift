import ArgumentParser
import Foundation
import LocationFormats
import LocationState

/// `locationd last`: where am I, and how fresh is that?
///
/// Asks the running daemon over its control socket; when none answers, or the daemon
/// has no free client slot (its "too many clients" error), reads the fix the daemon
/// persisted and says on stderr that it comes from disk.
struct LastCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "last",
        abstract: "Print the current fix, or the last one known, with its age and source.",
        discussion: """
            Exit status: 0 a current fix; 3 only a stale or restored fix (still printed), or one \
            older than --max-age; 4 no fix known; 64 bad usage; 69 daemon or store unavailable.
            """)

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var socket: DaemonSocketOption

    @Flag(help: "Print the TPV object, with `age` (seconds) and `state`, as one JSON line.")
    var json = false

    @Flag(help: "Print a GeoJSON Feature.")
    var geojson = false

    @Option(
        help: ArgumentHelp("Treat a fix older than this many seconds as stale (exit status 3).", valueName: "seconds"))
    var maxAge: Double?

    func validate() throws {
        if json && geojson { throw ValidationError("--json and --geojson exclude each other") }
        if let maxAge, !(maxAge >= 0) || !maxAge.isFinite {
            throw ValidationError("--max-age must be a number of seconds, 0 or more")
        }
    }

    func run() throws {
        let directory = dataDirectory.url.path
        let sockets = DaemonSockets(socket: socket.path, dataDirectory: dataDirectory)
        let answer: LastFixAnswer
        do {
            let reply = try sockets.ask("?LAST;")
            if let reply, reply.line != ControlReply.tooManyClients {
                answer = try LastFixAnswer(daemonLine: reply.line)
            } else {
                answer = try LastFixAnswer(storeDirectory: directory)
                let why = reply.map { "the daemon on \($0.path) has too many clients" } ?? sockets.nobodyAnswers
                StandardError.line(
                    "locationd: \(why); \(answer.fix == nil ? "nothing stored" : "showing the fix stored") in \(directory)"
                )
            }
        } catch {
            throw error.exit()
        }
        guard let fix = answer.fix else {
            if json { print(ControlAnswers.noFixKnown) } else if !geojson { print("no fix known") }
            throw ExitCode(ExitStatus.noFix)
        }
        let tooOld = maxAge.map { limit in (answer.ageSeconds ?? .infinity) > limit } ?? false
        let state = tooOld && answer.state == .live ? .stale : answer.state
        if json {
            print(answer.jsonLine(state: state))
        } else if geojson {
            var bytes: [UInt8] = []
            fix.appendGeoJSONFeature(to: &bytes)
            print(String(decoding: bytes, as: UTF8.self))
        } else {
            print(answer.text(state: state), terminator: "")
        }
        if state != .live { throw ExitCode(ExitStatus.staleOrRestoredFix) }
    }
}
