import Foundation
import LocationState
import LocationStores

/// Where `tiles`, `timeline` and `export` take what they print: from a running daemon, which may
/// read a data directory this user cannot, else from the data directory's files.
///
/// Without `--data-dir`, the daemons are asked in ``DaemonSockets`` order (the system's,
/// then the user's own); `--socket` names the one to ask. With `--data-dir` alone the
/// files are read, read-only, beside a running daemon.
struct DaemonOrFiles {
    /// The daemons to ask; nil when the files are to be read.
    let sockets: DaemonSockets?
    /// The data directory whose files are read when no daemon answers.
    let directory: URL

    init(socket: String?, dataDirectory: DataDirectoryOption) {
        sockets =
            socket != nil || dataDirectory.path == nil
            ? DaemonSockets(socket: socket, dataDirectory: dataDirectory) : nil
        directory = dataDirectory.url
    }

    /// Why the files are read instead of a daemon's answer.
    struct Fallback {
        /// Why no daemon gave the answer; empty when `--data-dir` named the files.
        let reason: String
        /// The line for stderr once the files are read: a daemon answered but refused.
        let note: String?

        /// Runs `read` on the files; its failure says first why no daemon gave the answer.
        func read<T>(_ read: () throws(LocationError) -> T) throws(LocationError) -> T {
            do {
                return noted(try read())
            } catch {
                throw reason.isEmpty ? error : error.after(prefix)
            }
        }

        /// ``read(_:)`` for `export`, whose reading also fails with `TrackExport.Failure`.
        func readTracks<T>(_ read: () throws -> T) throws -> T {
            do {
                return noted(try read())
            } catch let failure as TrackExport.Failure where !reason.isEmpty {
                throw TrackExport.Failure(kind: failure.kind, message: prefix + failure.message)
            } catch let error as LocationError where !reason.isEmpty {
                throw error.after(prefix)
            }
        }

        /// What a failure to read the files is prefixed with.
        private var prefix: String { "\(reason); nor can the files be read: " }

        /// `value`, once the note (if any) is on stderr.
        private func noted<T>(_ value: T) -> T {
            if let note { StandardError.line(note) }
            return value
        }
    }

    /// Asks the daemons for `request` and hands `line` each line of the answer until it
    /// returns false (the answer's last line).
    ///
    /// - Returns: nil when a daemon gave the answer; else why the files are to be read
    ///   (no daemon answers, or the one that answered refused with an ERROR object: one
    ///   of an older version, one without a free client slot, one that keeps no timeline).
    /// - Throws: `LocationError` when asking failed (the system's socket is closed to
    ///   this user and no daemon of theirs answers, a daemon that does not answer in time)
    ///   or the answer broke off after it had begun: its first lines are printed already.
    func ask(_ request: String, line: (String) throws(LocationError) -> Bool) throws(LocationError) -> Fallback? {
        guard let sockets else { return Fallback(reason: "", note: nil) }
        var refusal: String?
        var begun = false
        let path = try sockets.converse(request) { text throws(LocationError) in
            if let message = Self.errorMessage(text) {
                guard begun else {
                    refusal = message
                    return false
                }
                throw .unavailable("the daemon's answer broke off: \(message)")
            }
            begun = true
            return try line(text)
        }
        guard let path else { return Fallback(reason: sockets.nobodyAnswers, note: nil) }
        guard let refusal else { return nil }
        return Fallback(
            reason: "the daemon on \(path) answers: \(refusal)",
            note: "locationd: the daemon on \(path) answers: \(refusal); read the files in \(directory.path)")
    }

    /// An unexpected line in an answer.
    static func unexpected(_ text: String) -> LocationError {
        .unavailable("the daemon answered with a line this locationd does not read: \(text.prefix(80))")
    }

    /// The message of an ERROR object; nil for any other line.
    private static func errorMessage(_ text: String) -> String? {
        guard text.hasPrefix(#"{"class":"ERROR""#) else { return nil }
        let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        return object?["message"] as? String ?? String(text.prefix(80))
    }
}
