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
}
