import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small file a person names in the settings (the configuration file, the HTTP token,
/// the MQTT password), read whole at start.
///
/// It is opened without blocking and must be a regular file: a FIFO or a device would
/// otherwise hold the start for ever, before any signal handler can end it.
public enum ConfiguredFile {
    /// The contents of the regular file at `path`, at most `maxBytes` of them.
    ///
    /// - Throws: `fileNotFound` when nothing is there, `fileUnreadable` (exit 66) when it
    ///   is not a regular file or cannot be read, `usage` when it is larger than `maxBytes`.
    public static func contents(of path: String, maxBytes: Int = 1 << 20) throws(LocationError) -> Data {
        let (descriptor, _) = try openRegular(path)
        defer { close(descriptor) }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileUnreadable(path: path, reason: SystemCall.message())
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
            guard data.count <= maxBytes else {
                throw .usage("\(path): larger than \(maxBytes) bytes; is it really the file meant?")
            }
        }
    }

    /// ``contents(of:maxBytes:)`` for a file that holds a secret (`key` names its setting).
    ///
    /// Logs one warning when someone besides this process's user may read it (or write it):
    /// every user, or members of its group other than this user (see ``exposure(mode:group:)``);
    /// a file of the daemon's user alone (`chown USER`, mode 0600), or one in a group that
    /// holds nobody else, is quiet. One this user may not read says how to hand it over.
    public static func secret(at path: String, naming key: String, logger: Logger) throws(LocationError) -> Data {
        let user = SystemAccounts.userName(geteuid())
        let mode: mode_t
        let group: gid_t
        do {
            let (descriptor, info) = try openRegular(path)
            close(descriptor)
            (mode, group) = (info.st_mode, info.st_gid)
        } catch {
            guard access(path, R_OK) != 0, errno == EACCES else { throw error }
            throw .fileUnreadable(
                path: path,
                reason:
                    "permission denied to user \(user); make it that user's own (chown \(user) \(path.escapedForTerminal); chmod 600 \(path.escapedForTerminal)) or, under systemd, hand it over as a credential (LoadCredential=, see docs/configuration.md)"
            )
        }
        if let exposure = exposure(mode: mode, group: SystemAccounts.group(group, besides: user)) {
            logger.warning(
                "\(key) \(path.escapedForTerminal) has mode \(String(mode & 0o777, radix: 8)): \(exposure) may read the secret in it; make it \(user)'s alone: chown \(user) \(path.escapedForTerminal); chmod 600 \(path.escapedForTerminal)"
            )
        }
        return try contents(of: path, maxBytes: 64 * 1024)
    }

    /// Who besides the reading user may read a file of `mode` whose group is `group` (its
    /// name, and the users in it besides the reader): "every user", "the members of group G
    /// (a, b)", or nil when nobody else may.
    public static func exposure(mode: mode_t, group: (name: String, others: [String])) -> String? {
        if mode & 0o007 != 0 { return "every user" }
        guard mode & 0o070 != 0, !group.others.isEmpty else { return nil }
        return "the members of group \(group.name) (\(group.others.joined(separator: ", ")))"
    }

    /// Opens `path` for reading without blocking and checks that it is a regular file;
    /// returns the descriptor (blocking again) and the file's status.
    private static func openRegular(_ path: String) throws(LocationError) -> (Int32, stat) {
        let (descriptor, info) = try SystemCall.openForReading(path, flags: O_NONBLOCK | O_NOCTTY)
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .fileUnreadable(path: path, reason: "it is not a regular file")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return (descriptor, info)
    }
}
