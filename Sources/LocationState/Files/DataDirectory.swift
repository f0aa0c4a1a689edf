import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where locationd keeps its state (tile log, last fix, tracks) when no `--data-dir` is given.
public enum DataDirectory {
    /// The default data directory:
    /// - for root (a system daemon): `/var/lib/locationd`;
    /// - otherwise `$XDG_STATE_HOME/locationd` when that variable holds an absolute
    ///   path (the XDG Base Directory rule: relative values are ignored);
    /// - otherwise `$HOME/.local/state/locationd`.
    ///
    /// - Parameters:
    ///   - environment: the process environment.
    ///   - isRoot: whether the effective user is root.
    public static func defaultURL(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        isRoot: Bool = geteuid() == 0
    ) -> URL {
        if isRoot { return URL(fileURLWithPath: "/var/lib/locationd", isDirectory: true) }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return URL(fileURLWithPath: state, isDirectory: true).appendingPathComponent("locationd", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true)
            .appendingPathComponent(".local/state/locationd", isDirectory: true)
    }

    /// Creates a directory and its missing parents, each with mode 0700, and makes
    /// sure the directory itself is private: this is the one place where locationd
    /// makes a directory for its data (the data directory, `tracks/`, the stores).
    ///
    /// An existing directory with group or other permissions (such as 0755) is
    /// tightened to 0700 when it belongs to the effective user and is not a shared
    /// sticky directory such as `/tmp`; otherwise it is left as it is and
    /// ``privacyWarning(_:)`` says so. Parents that exist are never changed.
    ///
    /// POSIX `mkdir` rather than `FileManager`, whose errors on Linux lose the reason ("Not a directory").
    ///
    /// - Throws: ``LocationError`` when a component cannot be created, the path is
    ///   not a directory, or it cannot be read, searched and written.
    public static func create(_ url: URL) throws(LocationError) {
        try create(path: url.path)
    }

    /// ``create(_:)`` for a path.
    public static func create(path: String) throws(LocationError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw .cannotWrite(
                    path: prefix, reason: "cannot create the directory (\(SystemCall.message()))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw .cannotWrite(path: path, reason: SystemCall.message())
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .cannotWrite(path: path, reason: "it exists and is not a directory")
        }
        if info.st_mode & 0o077 != 0, info.st_uid == geteuid(), info.st_mode & S_ISVTX == 0 {
            guard chmod(path, 0o700) == 0 else {
                throw .cannotWrite(
                    path: path, reason: "cannot make it private (mode 0700): \(SystemCall.message())")
            }
        }
        guard access(path, R_OK | W_OK | X_OK) == 0 else {
            throw .cannotWrite(path: path, reason: SystemCall.message())
        }
    }

    /// One line to log when the directory is open to other users and was not
    /// tightened by ``create(_:)`` (it belongs to another user, or is a shared
    /// sticky directory); `nil` when it is private.
    public static func privacyWarning(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 != 0 else { return nil }
        let mode = String(info.st_mode & 0o7777, radix: 8)
        return
            "data directory \(path) has mode \(mode) and belongs to uid \(info.st_uid): other users may read the location history in it; make it 0700 (chmod 700) or choose another --data-dir"
    }
}
