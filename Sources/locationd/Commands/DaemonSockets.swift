import LocationState

#if canImport(Glibc)
    import Glibc
#endif

/// Which daemon a command asks, and where: the one rule that `last`, `regions` and the
/// other commands that ask a running daemon share.
///
/// With `--socket`, that socket only; with `--data-dir`, the socket in that directory
/// only. With neither, the system daemon's socket (the packaged service's, in its
/// runtime directory, open to the group `locationd`) and then the user's own daemon's
/// (`control.sock` in the default data directory).
struct DaemonSockets: Sendable {
    /// The packaged service's control socket, in the runtime directory systemd makes for it.
    static let systemPath = "/run/locationd/control.sock"
    /// The group whose members may connect to the system daemon's socket.
    static let systemGroup = "locationd"

    /// A place a daemon may answer.
    struct Place: Sendable, Equatable {
        let path: String
        /// Whether it is the system daemon's, which only the group may reach.
        let isSystem: Bool
    }

    /// Where to look, in order.
    let places: [Place]

    /// - Parameters:
    ///   - socket: `--socket`, when given.
    ///   - dataDirectory: `--data-dir` when given, and the default data directory otherwise.
    ///   - systemPath: the system daemon's socket (tests name another).
    init(socket: String?, dataDirectory: DataDirectoryOption, systemPath: String = Self.systemPath) {
        let own = Place(path: dataDirectory.url.path + "/" + DataDirectory.Name.controlSocket, isSystem: false)
        if let socket {
            places = [Place(path: socket, isSystem: socket == systemPath)]
        } else if dataDirectory.path != nil {
            places = [own]
        } else {
            places = [Place(path: systemPath, isSystem: true), own]
        }
    }

    /// A daemon's answer, and the socket it came from.
    struct Answer: Sendable {
        let line: String
        let path: String
    }

    /// Sends `request` to the first daemon that answers, in ``places`` order.
    ///
    /// - Returns: `nil` when none answers (no socket, or a stale one).
    /// - Throws: `LocationError.unavailable` when a daemon does not answer in time, or when
    ///   the only daemon running is the system's and this user is outside its group: one
    ///   line that names the group.
    func ask(_ request: String) throws(LocationError) -> Answer? {
        var first: String?
        let path = try converse(request) { line in
            first = line
            return false
        }
        guard let path, let first else { return nil }
        return Answer(line: first, path: path)
    }

    /// Sends `request` to the first daemon that answers, in ``places`` order, and hands
    /// `line` each line of its answer until it returns false (the answer is complete).
    ///
    /// - Returns: the socket of the daemon that answered; `nil` when none did.
    /// - Throws: as ``ask(_:)``, also when the daemon closes before the answer is complete,
    ///   and what `line` throws.
    func converse(_ request: String, line: (String) throws(LocationError) -> Bool) throws(LocationError) -> String? {
        var denied: Place?
        for place in places {
            if access(place.path, W_OK) != 0, errno == EACCES || errno == EPERM {
                denied = denied ?? place
                continue
            }
            if try ControlClient.converse(request, socketPath: place.path, line: line) {
                return place.path
            }
        }
        if let denied {
            throw .unavailable(
                denied.isSystem
                    ? "the system daemon's socket \(denied.path) is open to the group \(Self.systemGroup) only: add yourself (sudo adduser $USER \(Self.systemGroup)) and log in again"
                    : "\(denied.path): permission denied; run as the daemon's user")
        }
        return nil
    }

    /// Says that no daemon answers, naming each place asked and what to do.
    var nobodyAnswers: String {
        let asked = places.map { place in
            place.isSystem ? "the system's on \(place.path)" : "yours on \(place.path)"
        }
        var advice: [String] = []
        if places.contains(where: \.isSystem) { advice.append("sudo systemctl start locationd") }
        if places.contains(where: { !$0.isSystem }) { advice.append("locationd run") }
        return
            "no daemon answers (\(asked.joined(separator: ", nor "))); start one: \(advice.joined(separator: " or "))"
    }
}
