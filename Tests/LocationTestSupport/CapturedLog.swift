import Logging

/// An in-memory log: a `LogHandler` factory whose lines a test can await.
package final class CapturedLog: Sendable {
    package init() {}

    /// Every line logged, as "LEVEL message".
    package let lines = Mailbox<String>()

    /// A logger that writes into this log, at `level` and above.
    package func logger(label: String = "test", level: Logger.Level = .debug) -> Logger {
        var logger = Logger(label: label) { _ in Handler(lines: self.lines) }
        logger.logLevel = level
        return logger
    }

    private struct Handler: LogHandler {
        let lines: Mailbox<String>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            lines.post("\(event.level) \(event.message)")
        }
    }
}
