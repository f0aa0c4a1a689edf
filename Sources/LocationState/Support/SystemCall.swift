import Foundation

/// What every caller of a system call needs: the message for an `errno`, and writing a
/// whole buffer.
public enum SystemCall {
    /// The system's message for an `errno` value, by default the current one.
    public static func message(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    /// Writes all of `bytes` to `descriptor`, again after a short or interrupted (EINTR)
    /// write; stops at the first error. Returns how many bytes were written and, when
    /// that is not all, the `errno` that stopped the rest (0 for a write of nothing).
    @discardableResult
    public static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> (
        count: Int, errorNumber: Int32
    ) {
        guard let base = bytes.baseAddress else { return (0, 0) }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0, errno == EINTR { continue }
            if written < 0 { return (offset, errno) }
            if written == 0 { return (offset, 0) }
            offset += written
        }
        return (offset, 0)
    }

    /// Opens `path` for reading (`O_RDONLY | O_CLOEXEC` and `flags`) and reads its status.
    ///
    /// - Throws: `fileNotFound` when it does not exist, else `fileUnreadable` with the
    ///   system's reason; the descriptor is closed on every error.
    package static func openForReading(_ path: String, flags: Int32 = 0) throws(LocationError) -> (
        descriptor: Int32, info: stat
    ) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | flags)
        guard descriptor >= 0 else { throw readingError(path, errno) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw .fileUnreadable(path: path, reason: message(code))
        }
        return (descriptor, info)
    }

    /// What `code`, the errno of opening or looking up `path` to read it, means:
    /// `fileNotFound` when it does not exist, else `fileUnreadable` with the system's reason.
    package static func readingError(_ path: String, _ code: Int32) -> LocationError {
        if code == ENOENT || code == ENOTDIR { return .fileNotFound(path: path) }
        return .fileUnreadable(path: path, reason: message(code))
    }
}
