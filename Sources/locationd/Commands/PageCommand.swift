import ArgumentParser
import Foundation
import LocationState

/// `locationd page`: the URL of the running daemon's page (or of a path of its HTTP API),
/// with the token it asks for, so that a member of the socket's group opens it in one command.
///
/// Asks the daemon over its control socket (`?PAGE;`), as `last` does: whoever may ask the
/// socket may see the location, and gets the token with the URL; nobody else does.
struct PageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "page",
        abstract: "Print the URL of the running daemon's page, with the token it needs.",
        discussion: """
            Open it with: xdg-open "$(locationd page)". With a PATH of the HTTP API, that \
            path's URL: curl "$(locationd page /api/v1/last)". Exit status: 0 the URL printed; \
            64 bad usage; 69 no daemon answers, it serves no HTTP, or its socket is not open to you.
            """)

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var socket: DaemonSocketOption

    @Argument(
        help: ArgumentHelp("A path of the HTTP API, such as /api/v1/last (default: the page).", valueName: "path"))
    var path = "/"

    func validate() throws {
        guard path.hasPrefix("/"), !path.contains("#"), path.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw ValidationError("the path must start with / and hold no space or #, such as /api/v1/last")
        }
    }

    func run() throws {
        let sockets = DaemonSockets(socket: socket.path, dataDirectory: dataDirectory)
        do throws(LocationError) {
            guard let reply = try sockets.ask("?PAGE;") else { throw .unavailable(sockets.nobodyAnswers) }
            let page = try? JSONDecoder().decode(PageAnswer.self, from: Data(reply.line.utf8))
            guard let page, page.class == "PAGE" else {
                throw .unavailable(
                    "the daemon on \(reply.path) does not say where its page is: \(reply.line.prefix(200))")
            }
            guard let url = page.url else {
                throw .unavailable("the daemon on \(reply.path) serves no HTTP (http = off)")
            }
            let target = String(url.dropLast(url.hasSuffix("/") ? 1 : 0)) + path
            print(page.token.map { target + (path.contains("?") ? "&" : "?") + "access_token=" + $0 } ?? target)
        } catch {
            throw error.exit()
        }
    }

    /// `?PAGE;`'s answer: the server's URL, and the token when it asks for one.
    private struct PageAnswer: Decodable {
        let `class`: String
        let url: String?
        let token: String?
    }
}
