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
}
