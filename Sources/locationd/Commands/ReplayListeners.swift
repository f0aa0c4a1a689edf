import Foundation
import LocationState
import LocationStores
import Logging

/// The daemon's stores, fed by a replay (`locationd replay FILE --data-dir DIR`), so
/// that a recorded track can fill the tile log and the last fix.
///
/// ``record(_:)`` runs in the replay pipeline's one listener, so that when the
/// pipeline has drained, the stores have seen every fix and ``finish()`` writes them all.
///
/// Takes the data directory's lock as the daemon does: a replay never writes into
/// the directory of a running daemon.
final class ReplayListeners: Sendable {
    private let lock: DaemonLock
    private let tiles: TileLogger
    private let lastFix: LastFixStore
    private let logger = Logger(label: "locationd.replay")

    /// Opens the stores in `directory`; a tile log that cannot be opened (a symbolic link,
    /// a damaged file) is refused here, before anything is replayed.
    init(directory: String, zooms: [Int]) throws(LocationError) {
        lock = try DaemonLock(directory: directory, logger: logger)
        let database = URL(fileURLWithPath: directory).appendingPathComponent(TileDatabase.fileName)
        _ = try TileDatabase.open(at: database)
        tiles = TileLogger(
            configuration: TileLogger.Configuration(zooms: zooms), sink: TileDatabaseSink(url: database),
            logger: logger)
        lastFix = try LastFixStore(directory: directory, logger: logger)
    }

    /// Hands one change of the replayed location to both stores.
    func record(_ location: Location?) {
        tiles.record(location)
        lastFix.record(location)
    }

    /// Waits for both stores to write what they hold; returns the first failure (each is
    /// printed, one line each), which makes the replay's exit status.
    func finish() async -> LocationError? {
        var failure: LocationError?
        do { try await tiles.close() } catch {
            StandardError.line("locationd: \(error.message)")
            failure = error
        }
        do { try lastFix.flush() } catch {
            StandardError.line("locationd: \(error.message)")
            failure = failure ?? error
        }
        return failure
    }
}
