import LocationState
import LocationStores

/// Unbuffered, whole-line writes to stderr (the C `stderr` global is not concurrency-safe in Swift 6).
enum StandardError {
    /// Writes `text` as one line: what a terminal would act on escaped (``escapedForTerminal``), then a newline.
    static func line(_ text: String) {
        write(text.escapedForTerminal + "\n")
    }

    static func write(_ text: String) {
        var text = text
        _ = text.withUTF8 { SystemCall.writeAll(2, UnsafeRawBufferPointer($0)) }
    }
}
