import Foundation
import LocationState
import LocationStores
import Logging

/// The daemon's history listeners (``DaemonContext/historyListeners()``: the tile log, the
/// last fix, the timeline), fed by a replay (`locationd replay FILE --data-dir DIR`), so
/// that a recorded track fills the data directory as the daemon would have.
///
/// ``record(_:)`` tells every listener at once, in the replay pipeline's one listener, so
/// that when the pipeline has drained the stores have seen every fix and ``finish()``
/// writes them all; nothing waits in a queue, whatever the file's size.
///
/// Takes the data directory's lock as the daemon does: a replay never writes into the
/// directory of a running daemon.
final class ReplayHistory: Sendable {
    private let lock: DaemonLock
    private let listeners: [HistoryListener]
    /// The last value replayed, the `old` of the next change.
    private let last = Locked<Location?>(nil)

    /// Opens the stores in `directory`; a tile log that cannot be opened (a symbolic link,
    /// a damaged file) is refused here, before anything is replayed.
    init(directory: String, zooms: [Int]) throws(LocationError) {
        let logger = Logger(label: "locationd.replay")
        lock = try DaemonLock(directory: directory, logger: logger)
        _ = try TileDatabase.open(at: URL(fileURLWithPath: directory).appendingPathComponent(TileDatabase.fileName))
        var configuration = DaemonConfiguration(dataDirectory: directory)
        configuration.zooms = zooms
        listeners = try DaemonContext.open(configuration: configuration, logger: logger).historyListeners()
    }

    /// Hands one change of the replayed location to every listener.
    func record(_ location: Location?) {
        let change = last.withLock { last in
            defer { last = location }
            return StateChange(old: last, new: location)
        }
        for history in listeners { history.listener.stateDidChange(change) }
    }

    /// Waits for every store to write what it holds; returns the first failure (each is
    /// printed, one line each), which makes the replay's exit status.
    func finish() async -> LocationError? {
        var failure: LocationError?
        for history in listeners {
            do { try await history.close() } catch {
                StandardError.line("locationd: \(error.message)")
                failure = failure ?? error
            }
        }
        return failure
    }
}
