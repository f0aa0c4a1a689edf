/// Splits a chunked byte stream into lines of bounded length (LF, CRLF or CR endings).
///
/// An over-long line is counted in ``droppedLines`` and skipped without being buffered.
package struct ReplayLineSplitter: Sendable {
    /// The longest line kept, in bytes.
    package let maximumLength: Int
    /// Over-long lines skipped so far.
    private(set) var droppedLines = 0
    private var pending: [UInt8] = []
    private var discarding = false

    package init(maximumLength: Int) {
        self.maximumLength = maximumLength
    }

    /// Calls `body` with each complete line in `chunk` (empty lines included, terminators not).
    package mutating func split(_ chunk: UnsafeRawBufferPointer, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let bytes = chunk.bindMemory(to: UInt8.self)
        var lineStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            if byte == 10 || byte == 13 {
                if discarding {
                    discarding = false
                } else if pending.isEmpty {
                    body(UnsafeBufferPointer(rebasing: bytes[lineStart..<index]))
                } else {
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[lineStart..<index]))
                    if pending.count > maximumLength {
                        droppedLines += 1
                    } else {
                        pending.withUnsafeBufferPointer { body($0) }
                    }
                    pending.removeAll(keepingCapacity: true)
                }
                lineStart = index + 1
            } else if !discarding, index - lineStart + pending.count >= maximumLength {
                droppedLines += 1
                discarding = true
                pending.removeAll(keepingCapacity: true)
            }
        }
        if !discarding, lineStart < bytes.count {
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[lineStart..<bytes.count]))
        }
    }

    /// Calls `body` with the last line when the input did not end with a terminator.
    package mutating func finish(_ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if !discarding, !pending.isEmpty { pending.withUnsafeBufferPointer { body($0) } }
        pending.removeAll()
        discarding = false
    }
}
