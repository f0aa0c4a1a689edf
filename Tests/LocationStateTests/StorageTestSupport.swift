import Foundation
import Logging

@testable import LocationState

/// A fresh directory under the system's temporary directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-tests-\(UUID())").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// The permission bits of the file or directory at `path`.
func permissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

/// Collects what is logged through ``logger``, for tests that check a log line.
final class LogRecorder: Sendable {
    private let lines = Locked<[(level: Logger.Level, message: String)]>([])

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    /// Everything logged so far, in order.
    var events: [(level: Logger.Level, message: String)] {
        lines.withLock { $0 }
    }

    func messages(at level: Logger.Level) -> [String] {
        lines.withLock { $0.filter { $0.level == level }.map(\.message) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.lines.withLock { $0.append((event.level, "\(event.message)")) }
        }
    }
}
