/// An error locationd reports to its user: one sentence that says what went wrong and what to do.
///
/// A struct around a private code, so that new cases never break callers; the
/// command line maps ``Kind`` to a sysexits(3) exit status in one place.
public struct LocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad class of failure, which decides the exit status.
    public enum Kind: Sendable, Hashable {
        /// Bad command-line usage or configuration (EX_USAGE, EX_CONFIG).
        case usage
        /// Input data missing or unreadable (EX_NOINPUT).
        case noInput
        /// Input data of a kind locationd does not read (EX_DATAERR).
        case dataError
        /// A service (gpsd, the daemon, the store) cannot be reached (EX_UNAVAILABLE).
        case unavailable
        /// A file or directory cannot be created or written (EX_CANTCREAT, EX_IOERR).
        case cannotWrite
        /// Something inside locationd went wrong (EX_SOFTWARE).
        case internalError
    }

    /// Which class of failure this is.
    public let kind: Kind
    /// One sentence a user can act on.
    public let message: String
    /// What is wrong with a database that cannot be used (``databaseCorrupt(path:reason:)``),
    /// for the owner that moves it aside and says so in its own words; nil for other errors.
    public private(set) var corruption: String?

    private init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// A bad flag, argument or configuration value.
    public static func usage(_ message: String) -> LocationError { .init(.usage, message) }

    /// The named file does not exist.
    public static func fileNotFound(path: String) -> LocationError {
        .init(.noInput, "\(path): no such file; check the path.")
    }

    /// The named file exists but cannot be read as what it should be.
    public static func fileUnreadable(path: String, reason: String) -> LocationError {
        .init(.noInput, "\(path): cannot read it: \(reason).")
    }

    /// The named file is compressed (`gzip`, `bzip2`, `xz`, `zstd`), which locationd does not read.
    public static func compressed(path: String, by compressor: String) -> LocationError {
        .init(
            .dataError,
            "\(path): is \(compressor)-compressed, which locationd does not read; decompress it first, or pipe it in: \(compressor) -dc FILE | locationd replay /dev/stdin"
        )
    }

    /// gpsd does not answer at the given address.
    public static func gpsdUnreachable(host: String, port: Int, reason: String) -> LocationError {
        .init(
            .unavailable,
            "gpsd at \(host):\(port) is not reachable (\(reason)); is gpsd running and listening there?")
    }

    /// A directory or file locationd must write cannot be written.
    public static func cannotWrite(path: String, reason: String) -> LocationError {
        .init(.cannotWrite, "\(path): cannot write: \(reason); check its permissions and free space.")
    }

    /// A file in the data directory is a symbolic link, which locationd never follows.
    public static func symbolicLink(path: String) -> LocationError {
        .init(
            .cannotWrite,
            "\(path): is a symbolic link; locationd never follows links in its data directory: remove the link.")
    }

    /// Where locationd keeps a file, something else is; `what` says what ("a directory").
    /// Reading, the input is missing (exit 66); writing, the file cannot be made (73).
    public static func notAFile(path: String, is what: String, reading: Bool) -> LocationError {
        .init(reading ? .noInput : .cannotWrite, "\(path): is \(what), not a file locationd can use; move it away.")
    }

    /// A service locationd depends on (the daemon, the store) is not available.
    public static func unavailable(_ message: String) -> LocationError { .init(.unavailable, message) }

    /// The same failure, its sentence after `context` (what was tried before, say).
    public func after(_ context: String) -> LocationError { .init(kind, context + message) }

    /// A broken invariant inside locationd; a bug to report.
    public static func internalError(_ message: String) -> LocationError { .init(.internalError, message) }

    /// There is no tile database at the path yet.
    public static func noTileDatabase(path: String) -> LocationError {
        .init(
            .noInput,
            "\(path): no tile database here yet; point --data-dir at the directory locationd logs tiles into.")
    }

    /// A database file that cannot be used (not SQLite, damaged, or not locationd's); it is left untouched.
    public static func databaseCorrupt(path: String, reason: String) -> LocationError {
        var error = LocationError(
            .noInput,
            "\(path): not a usable database (\(reason)); it was left untouched: move it aside to start a new one.")
        error.corruption = reason
        return error
    }

    /// Another process holds a lock on the database for longer than locationd waits.
    public static func databaseLocked(path: String) -> LocationError {
        .init(
            .unavailable,
            "\(path): the database is locked by another process; stop that process or try again later.")
    }
}
