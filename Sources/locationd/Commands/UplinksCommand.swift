import ArgumentParser
import Foundation
import LocationState
import LocationUplinks
import NIOPosix

/// `locationd uplinks`: each target's state, as the running daemon reports it; with
/// `--test NAME`, one fix sent to that target now and the server's answer.
struct UplinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uplinks",
        abstract: "Show the HTTP servers the location is sent to, or send one fix to one now.",
        discussion: """
            Without --test: the running daemon's targets (name, protocol, state, backlog, the newest fix \
            delivered, the last answer, the URL with its secrets masked). With --test NAME: the target \
            NAME of the configuration `locationd run` reads (--config, else the default file, and \
            LOCATIOND_UPLINK... variables) gets the current fix (the daemon's, else the one stored) now, \
            outside the outbox; run it as a user that can read the target's secret files. \
            Exit status: 0 shown, or delivered; 1 not delivered (the answer is printed); 4 no fix known; \
            64 bad usage or no such target; 69 no daemon answers.
            """)

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var socket: DaemonSocketOption

    @Flag(help: "Print the targets as a JSON array, as ?STATUS; has them.")
    var json = false

    @Option(help: ArgumentHelp("Send the current fix to this target now and print the answer.", valueName: "name"))
    var test: String?

    @Option(help: ArgumentHelp("The configuration file to read (with --test).", valueName: "path"))
    var config: String?

    func run() async throws {
        let sockets = DaemonSockets(socket: socket.path, dataDirectory: dataDirectory)
        if let test { return try await send(to: test, sockets: sockets) }
        let reply: DaemonSockets.Answer?
        do {
            reply = try sockets.ask("?STATUS;")
        } catch {
            throw error.exit()
        }
        guard let line = reply?.line else { throw LocationError.unavailable(sockets.nobodyAnswers).exit() }
        let status = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        let targets = status?["uplinks"] as? [[String: Any]] ?? []
        if json {
            let data = try JSONSerialization.data(withJSONObject: targets, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        guard !targets.isEmpty else { return print("no uplinks configured") }
        print(Self.table(targets), terminator: "")
    }

    /// One line per target, columns aligned.
    static func table(_ targets: [[String: Any]]) -> String {
        let header = ["NAME", "PROTOCOL", "STATE", "BACKLOG", "LAST FIX DELIVERED", "LAST ANSWER", "URL"]
        let rows = targets.map { target -> [String] in
            [
                target["name"] as? String ?? "?", target["protocol"] as? String ?? "?",
                target["state"] as? String ?? "?", String(target["backlog"] as? Int ?? 0),
                target["lastDeliveredFix"] as? String ?? "-", target["lastAnswer"] as? String ?? "-",
                target["url"] as? String ?? "?",
            ].map(\.escapedForTerminal)
        }
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        return ([header] + rows).map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }.joined(separator: "  ") + "\n"
        }.joined()
    }

    private func send(to name: String, sockets: DaemonSockets) async throws {
        var source = DaemonConfigurationSource()
        source.explicitFile = config
        do {
            let configuration = try source.resolve()
            guard let target = configuration.uplinks.targets.first(where: { $0.name == name }) else {
                let names = configuration.uplinks.targets.map(\.name)
                throw LocationError.usage(
                    "no uplink named \(name.prefix(64).escapedForTerminal) in \(source.file) or the environment"
                        + (names.isEmpty ? "" : " (targets: \(names.joined(separator: ", ")))"))
            }
            let reply = try sockets.ask("?LAST;")
            let answer =
                if let reply, reply.line != ControlReply.tooManyClients {
                    try LastFixAnswer(daemonLine: reply.line)
                } else {
                    try LastFixAnswer(storeDirectory: dataDirectory.url.path)
                }
            guard let fix = answer.fix else {
                print("no fix known")
                throw ExitCode(ExitStatus.noFix)
            }
            let result = try await UplinkTest.send(
                fix, to: target, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            // Not delivered: the server's words with what they mean (a refusal says why).
            let said =
                switch result.answer {
                case .delivered: result.words
                case .refused(let reason), .retry(let reason, _): reason
                }
            print("\(target.name) (\(target.maskedURL)): \(result.delivered ? "delivered" : "not delivered"), \(said)")
            if !result.delivered { throw ExitCode.failure }
        } catch let error as LocationError {
            throw error.exit()
        }
    }
}
