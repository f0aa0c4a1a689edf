import Foundation
import InMemoryLogging
import LocationState
import Logging

/// A fresh directory under the system's temporary directory, removed afterwards.
package func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-tests-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// The permission bits of the file or directory at `path`.
package func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// What is logged through ``logger``, kept by swift-log's `InMemoryLogHandler`, for
/// tests that check a log line.
package final class LogRecorder: Sendable {
    package init() {}

    private let handler = InMemoryLogHandler()

    /// A logger at every level (the handler alone starts at `.info`) into this recorder.
    package var logger: Logger {
        var logger = Logger(label: "test") { [handler] _ in handler }
        logger.logLevel = .trace
        return logger
    }

    /// Everything logged so far, in order.
    package var events: [(level: Logger.Level, message: String)] {
        handler.entries.map { ($0.level, "\($0.message)") }
    }

    package func messages(at level: Logger.Level) -> [String] {
        handler.entries.filter { $0.level == level }.map { "\($0.message)" }
    }
}

/// `withTemporaryDirectory` for async bodies.
package func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-tests-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try await body(path)
}
