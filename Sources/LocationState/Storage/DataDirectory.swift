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

    /// Creates a directory and its missing parents, each with mode 0700 (less the umask);
    /// an existing directory is left as it is.
    ///
    /// POSIX `mkdir` rather than `FileManager`, whose errors on Linux lose the reason ("Not a directory").
    public static func create(_ url: URL) throws(LocationError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue { return }
        let parent = url.deletingLastPathComponent()
        if parent.path != url.path { try create(parent) }
        if mkdir(url.path, 0o700) != 0, errno != EEXIST {
            throw .cannotWrite(path: url.path, reason: String(cString: strerror(errno)))
        }
    }
}
