import Foundation
import LocationState
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

    /// Opens the stores in `directory`.
    init(directory: String, zooms: [Int]) throws(LocationError) {
        lock = try DaemonLock(directory: directory, logger: logger)
        tiles = TileLogger(
            configuration: TileLogger.Configuration(zooms: zooms),
            sink: TileDatabaseSink(url: URL(fileURLWithPath: directory).appendingPathComponent(TileDatabase.fileName)),
            logger: logger)
        lastFix = try LastFixStore(directory: directory, logger: logger)
    }

    /// Hands one change of the replayed location to both stores.
    func record(_ location: Location?) {
        tiles.record(location)
        lastFix.record(location)
    }

    /// Waits for both stores to write what they hold; failures are printed, one line each.
    func finish() async {
        do { try await tiles.close() } catch { StandardError.write("locationd: \(error.message)\n") }
        do { try lastFix.flush() } catch { StandardError.write("locationd: \(error.message)\n") }
    }
}
