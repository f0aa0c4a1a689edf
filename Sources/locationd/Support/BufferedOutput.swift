import LocationState
import LocationStores

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
        _ = buffer.withUnsafeBytes { SystemCall.writeAll(1, $0) }
        buffer.removeAll(keepingCapacity: true)
    }
}
