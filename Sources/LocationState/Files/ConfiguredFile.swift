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

    /// ``contents(of:maxBytes:)`` for a file that holds a secret (`key` names its setting); logs one
    /// warning when group or other users may read it (or write it), as ssh does for a key.
    public static func secret(at path: String, naming key: String, logger: Logger) throws(LocationError) -> Data {
        let (descriptor, mode) = try openRegular(path)
        close(descriptor)
        if mode & 0o077 != 0 {
            logger.warning(
                "\(key) \(path.escapedForTerminal) has mode \(String(mode & 0o777, radix: 8)): other users may read the secret in it; make it private: chmod 600 \(path.escapedForTerminal)"
            )
        }
        return try contents(of: path, maxBytes: 64 * 1024)
    }

    /// Opens `path` for reading without blocking and checks that it is a regular file;
    /// returns the descriptor (blocking again) and the file's mode.
    private static func openRegular(_ path: String) throws(LocationError) -> (Int32, mode_t) {
        let (descriptor, info) = try SystemCall.openForReading(path, flags: O_NONBLOCK | O_NOCTTY)
        guard info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw .fileUnreadable(path: path, reason: "it is not a regular file")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return (descriptor, info.st_mode)
    }
}
