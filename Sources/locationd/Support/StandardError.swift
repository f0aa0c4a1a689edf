import LocationState

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Unbuffered, whole-line writes to stderr (the C `stderr` global is not concurrency-safe in Swift 6).
enum StandardError {
    /// Writes `text` as one line: what a terminal would act on escaped (``escapedForTerminal``), then a newline.
    static func line(_ text: String) {
        write(text.escapedForTerminal + "\n")
    }

    static func write(_ text: String) {
        var text = text
        text.withUTF8 { writeAll(2, UnsafeRawBufferPointer($0)) }
    }
}

/// Writes all of `bytes` to `descriptor`: again after a short write or an
/// interrupted one (EINTR); gives up silently when the descriptor is closed or fails,
/// as a command whose output went away (`locationd replay | head`) should.
func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) {
    guard var pointer = bytes.baseAddress else { return }
    var remaining = bytes.count
    while remaining > 0 {
        let written = write(descriptor, pointer, remaining)
        if written < 0, errno == EINTR { continue }
        if written <= 0 { return }
        pointer += written
        remaining -= written
    }
}
