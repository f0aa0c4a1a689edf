import Foundation
import LocationState

/// A ``TileSink`` that writes to the ``TileDatabase`` at a path, opening it on the
/// first write and, after a failed open (directory not writable, file locked or
/// corrupt), trying again on the next write.
///
/// A corrupt file keeps failing: it is never overwritten or moved.
public final class TileDatabaseSink: TileSink {
    /// The database file.
    public let url: URL
    private let busyTimeout: Duration
    private let maxPageCount: Int?
    private let database = Locked<TileDatabase?>(nil)

    /// - Parameters:
    ///   - url: the database file, usually `DATA_DIR/tiles.sqlite`.
    ///   - busyTimeout: how long a write waits for another process's lock.
    public convenience init(url: URL, busyTimeout: Duration = .seconds(1)) {
        self.init(url: url, busyTimeout: busyTimeout, maxPageCount: nil)
    }

    /// A sink whose database refuses to grow past `maxPageCount` pages, as on a full disk (for tests).
    package init(url: URL, busyTimeout: Duration, maxPageCount: Int?) {
        self.url = url
        self.busyTimeout = busyTimeout
        self.maxPageCount = maxPageCount
    }

    public func write(_ batch: [TileRecord]) throws(LocationError) {
        let result = database.withLock { (database: inout TileDatabase?) -> Result<Void, LocationError> in
            Result { () throws(LocationError) in
                if database == nil {
                    database = try TileDatabase.open(at: url, busyTimeout: busyTimeout, maxPageCount: maxPageCount)
                }
                try database?.add(batch)
            }
        }
        try result.get()
    }
}
