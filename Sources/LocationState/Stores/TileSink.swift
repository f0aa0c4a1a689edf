import LocationState

/// Where ``TileLogger`` stores its batches: the SQLite tile log, or a fake in tests.
///
/// - Important: ``write(_:)`` stores the whole batch or, when it throws, none of it,
///   so that the logger can keep the batch and retry it later. The logger calls it
///   from its writer queue only, never concurrently with itself and never on the
///   path that receives fixes.
public protocol TileSink: Sendable {
    /// Adds a batch of tile records, merging each into what is stored for its tile
    /// (``TileRecord/merge(_:)``).
    func write(_ batch: [TileRecord]) throws(LocationError)
}
