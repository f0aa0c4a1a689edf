import ArgumentParser
import Foundation
import LocationState
import LocationStores

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where `--output` writes, chosen by what is at the path: a file is replaced whole,
/// anything that is not a file is written into, never replaced (see docs/hardening.md).
///
/// - a new path or a regular file: written atomically (``FileSystem/save``), mode 0600;
/// - `-`, a FIFO or a character device (`/dev/null`, a terminal): the bytes are streamed into it;
/// - a symbolic link: what it points to decides, by the same rules; a link to a regular
///   file has its target replaced atomically and stays a link (`/proc/self/fd/1` streams);
/// - anything else (a directory, a socket, a block device, a link to nothing): refused
///   with one line, exit 73.
enum OutputTarget {
    /// Writes `data` to `path` by the rules above.
    ///
    /// - Throws: `ExitCode` after one line on stderr: 73 when the path cannot be written,
    ///   74 when a stream fails part way (a full device, a reader that went away).
    static func deliver(_ data: Data, to path: String) throws {
        if path == "-" { return try stream(data, into: 1, path: "standard output") }
        var link = stat()
        guard lstat(path, &link) == 0 else {
            guard errno == ENOENT else { throw refusal(path, SystemCall.message()) }
            return try save(data, path)
        }
        var target = link
        if link.st_mode & S_IFMT == S_IFLNK, stat(path, &target) != 0 {
            throw refusal(path, "it is a symbolic link to nothing that can be written")
        }
        switch target.st_mode & S_IFMT {
        case S_IFREG:
            guard link.st_mode & S_IFMT == S_IFLNK else { return try save(data, path) }
            guard let resolved = realpath(path, nil) else { throw refusal(path, SystemCall.message()) }
            defer { free(resolved) }
            try save(data, String(cString: resolved))
        case S_IFIFO, S_IFCHR:
            let flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | (link.st_mode & S_IFMT == S_IFLNK ? 0 : O_NOFOLLOW)
            let descriptor = open(path, flags)
            guard descriptor >= 0 else { throw refusal(path, SystemCall.message()) }
            defer { close(descriptor) }
            var opened = stat()
            guard fstat(descriptor, &opened) == 0, [S_IFIFO, S_IFCHR].contains(opened.st_mode & S_IFMT) else {
                throw refusal(path, "it changed while being opened")
            }
            try stream(data, into: descriptor, path: path)
        case S_IFDIR: throw refusal(path, "it is a directory; name a file in it")
        default: throw refusal(path, "it is not a file, a FIFO or a character device")
        }
    }

    private static func save(_ data: Data, _ path: String) throws {
        do {
            try FileSystem.live.save(data, path)
        } catch let error as LocationError {
            throw error.exit()
        }
    }

    /// Writes all of `data` to `descriptor`; a write that fails part way is one line and exit 74.
    private static func stream(_ data: Data, into descriptor: Int32, path: String) throws {
        let (count, failure) = data.withUnsafeBytes { SystemCall.writeAll(descriptor, $0) }
        guard count < data.count else { return }
        let reason = failure == 0 ? "the output took no more" : SystemCall.message(failure)
        StandardError.line("locationd: \(path): cannot write: \(reason)")
        throw ExitCode(ExitStatus.ioError)
    }

    private static func refusal(_ path: String, _ reason: String) -> ExitCode {
        LocationError.cannotWrite(path: path, reason: reason).exit()
    }
}
