#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Text for stdout, gathered in a 64 KiB buffer and written with `write(2)`: an
/// export of any length goes out in fixed-size pieces instead of one string.
///
/// One thread at a time (the `tiles` command's); ``flush()`` before exiting.
final class BufferedOutput {
    private var buffer: [UInt8] = []
    private let capacity: Int

    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
        buffer.reserveCapacity(capacity + 1024)
    }

    /// Appends `text`, writing the buffer out when it is full.
    func write(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= capacity { flush() }
    }

    /// Writes what is buffered; gives up silently when stdout is closed.
    func flush() {
        buffer.withUnsafeBytes { bytes in
            guard var pointer = bytes.baseAddress else { return }
            var remaining = bytes.count
            while remaining > 0 {
                let written = systemWrite(1, pointer, remaining)
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return }
                pointer += written
                remaining -= written
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// `write(2)`, named apart from ``BufferedOutput/write(_:)``.
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, buffer, count)
}
