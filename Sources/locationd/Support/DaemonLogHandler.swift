import LocationState
import Logging

/// The daemon's log handler: swift-log's stderr stream, at a level that SIGHUP can change.
///
/// Every logger of the process reads one shared level, so a reload reaches the
/// loggers already handed to the services.
struct DaemonLogHandler: LogHandler {
    /// The level of every logger made through this handler.
    static let level = Locked<Logger.Level>(.info)

    private var stream: StreamLogHandler

    init(label: String) {
        stream = StreamLogHandler.standardError(label: label)
        // The stream writes whatever it is given; the shared level filters.
        stream.logLevel = .trace
    }

    var logLevel: Logger.Level {
        get { Self.level.withLock { $0 } }
        set { Self.level.withLock { $0 = newValue } }
    }

    var metadata: Logger.Metadata {
        get { stream.metadata }
        set { stream.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { stream[metadataKey: key] }
        set { stream[metadataKey: key] = newValue }
    }

    /// Writes the event as one line: a newline or escape sequence in a message (a region's
    /// name, a path, a peer's words) is escaped, so that it can neither forge a line nor
    /// reach the terminal.
    func log(event: LogEvent) {
        var event = event
        event.message = "\(event.message.description.escapedForTerminal)"
        stream.log(event: event)
    }
}
