import Dispatch
import Foundation
import Logging

/// Logs the slippy-map tiles the device passes through, at a few zooms, into a ``TileSink``.
///
/// For each fix with a position, the tile at every configured zoom is recorded. Two
/// consecutive fixes are joined by a straight line in Web Mercator tile space, and
/// every tile on that line is recorded too, so a fast move skips none; they are not
/// joined when the time between them exceeds ``Configuration/maxGap``, when the
/// implied speed exceeds ``Configuration/maxSpeed``, or when either has no time.
/// Fixes without a position, and fixes whose `eph` exceeds ``Configuration/maxEph``,
/// are skipped. A tile's first and last sighting on a joined line are interpolated
/// along it.
///
/// A visit is an entry into a tile: moving into it from another tile, or the first
/// fix after the logger starts. Staying inside, even across a gap, does not count again.
///
/// Records go to the sink in batches, from a serial writer queue, never from
/// ``record(_:)``: when ``Configuration/batchSize`` distinct tiles are pending, every
/// ``Configuration/flushInterval``, and on ``flush()`` and ``close()``.
///
/// - Important: when the sink fails (disk full, database locked or corrupt, directory
///   not writable), the logger logs it once, keeps the batch in memory and retries it
///   at the next interval or ``flush()``; it logs again when writing works again. Past
///   ``Configuration/maxPendingTiles`` pending tiles it drops them and logs that.
///   ``record(_:)`` never blocks on the sink and never fails.
public final class TileLogger: Sendable {
    /// What to log and how often to write it.
    public struct Configuration: Sendable {
        /// Zooms to log, each in ``Tile/zoomRange``.
        public var zooms: [Int]
        /// The longest time between two fixes that are still joined.
        public var maxGap: Duration
        /// The highest implied speed between two fixes that are still joined, metres per second.
        public var maxSpeed: Double
        /// Fixes whose horizontal error `eph` exceeds this, in metres, are skipped;
        /// `nil` keeps them all. A fix without `eph` is kept.
        public var maxEph: Double?
        /// Pending distinct tiles that start a write.
        public var batchSize: Int
        /// Longest time a record waits before it is written.
        public var flushInterval: Duration
        /// Pending tiles kept while the sink fails; past this they are dropped.
        public var maxPendingTiles: Int

        public init(
            zooms: [Int] = [14, 17],
            maxGap: Duration = .seconds(60),
            maxSpeed: Double = 100,
            maxEph: Double? = 50,
            batchSize: Int = 500,
            flushInterval: Duration = .seconds(10),
            maxPendingTiles: Int = 100_000
        ) {
            self.zooms = zooms
            self.maxGap = maxGap
            self.maxSpeed = maxSpeed
            self.maxEph = maxEph
            self.batchSize = batchSize
            self.flushInterval = flushInterval
            self.maxPendingTiles = maxPendingTiles
        }
    }

    /// Running totals, for logs and tests.
    public struct Counters: Sendable, Hashable {
        /// Fixes that were logged.
        public var fixes = 0
        /// Fixes skipped: no position, or `eph` above the limit.
        public var skipped = 0
        /// Fixes not joined to the one before (gap, jump, no time), the first one included.
        public var unjoined = 0
        /// Tile records the sink accepted (one per distinct tile per batch).
        public var written = 0
        /// Writes the sink refused.
        public var failedWrites = 0
        /// Tile records dropped because the sink failed for too long.
        public var dropped = 0
    }

    private struct Previous {
        var latitude: Double
        var longitude: Double
        var time: Date
        var timed: Bool
        /// The fix's point at each zoom, in the order of the configured zooms.
        var points: [TilePoint]
    }

    private struct State {
        var previous: Previous?
        var pending: [Tile: TileRecord] = [:]
        var writeScheduled = false
        var failing = false
        var closed = false
        var counters = Counters()

        /// Adds a record to the pending batch, merged with what is pending for its tile.
        mutating func add(_ record: TileRecord) {
            if var known = pending[record.tile] {
                known.merge(record)
                pending[record.tile] = known
            } else {
                pending[record.tile] = record
            }
        }
    }

    private let configuration: Configuration
    private let sink: any TileSink
    private let log: Logger
    private let now: @Sendable () -> Date
    private let state = Locked(State())
    private let writer = DispatchQueue(label: "locationd.tiles.writer")

    /// - Parameters:
    ///   - configuration: zooms, joining and batching.
    ///   - sink: where batches go, usually a ``TileDatabaseSink``.
    ///   - logger: where failures and recoveries are logged.
    ///   - now: the clock for fixes that carry no time.
    /// - Precondition: every zoom is in ``Tile/zoomRange``; `batchSize` and `maxPendingTiles` are positive.
    public init(
        configuration: Configuration = Configuration(),
        sink: any TileSink,
        logger: Logger = Logger(label: "locationd.tiles"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        precondition(configuration.zooms.allSatisfy(Tile.zoomRange.contains), "zoom outside \(Tile.zoomRange)")
        precondition(configuration.batchSize > 0 && configuration.maxPendingTiles > 0, "batch sizes must be positive")
        self.configuration = configuration
        self.sink = sink
        self.log = logger
        self.now = now
        schedulePeriodicWrite()
    }

    /// The totals so far.
    public var counters: Counters { state.withLock { $0.counters } }

    /// Records a fix: cheap, never blocks on the sink. `nil` (no current fix) and fixes
    /// without a position or with too large an `eph` are skipped.
    public func record(_ location: Location?) {
        guard let location, location.hasPosition, let latitude = location.lat, let longitude = location.lon,
            latitude.isFinite, longitude.isFinite
        else {
            state.withLock { $0.counters.skipped += 1 }
            return
        }
        if let maxEph = configuration.maxEph, let eph = location.eph, !(eph <= maxEph) {
            state.withLock { $0.counters.skipped += 1 }
            return
        }
        let time = location.time ?? now()
        let (x, y) = TilePoint.project(latitude: latitude, longitude: longitude)
        let points = configuration.zooms.map { TilePoint(projectedX: x, projectedY: y, zoom: $0) }
        let current = Previous(
            latitude: latitude, longitude: longitude, time: time, timed: location.time != nil, points: points)
        let startWrite = state.withLock { state in
            let previous = state.previous
            let joined = previous.map { joins($0, current) } ?? false
            state.counters.fixes += 1
            if !joined { state.counters.unjoined += 1 }
            for (index, point) in points.enumerated() {
                let before = previous?.points[index]
                if joined, let previous, let before, before.tile == point.tile {
                    state.add(TileRecord(tile: point.tile, firstSeen: previous.time, lastSeen: time, visits: 0))
                } else if joined, let previous, let before {
                    let elapsed = time.timeIntervalSince(previous.time)
                    func at(_ fraction: Double) -> Date { previous.time.addingTimeInterval(elapsed * fraction) }
                    // The first crossing is the tile the device was already in.
                    for (step, crossing) in before.crossings(to: point).enumerated() {
                        state.add(
                            TileRecord(
                                tile: crossing.tile, firstSeen: at(crossing.enter), lastSeen: at(crossing.exit),
                                visits: step == 0 ? 0 : 1))
                    }
                } else {
                    let tile = point.tile
                    state.add(
                        TileRecord(tile: tile, firstSeen: time, lastSeen: time, visits: tile == before?.tile ? 0 : 1))
                }
            }
            state.previous = current
            guard !state.failing, !state.writeScheduled, state.pending.count >= configuration.batchSize else {
                return false
            }
            state.writeScheduled = true
            return true
        }
        if startWrite { writer.async { self.writePending() } }
    }

    /// Writes every pending record now and returns when the sink is done.
    ///
    /// - Throws: the sink's error; the records then stay pending for the next try.
    public func flush() async throws(LocationError) {
        let result: Result<Void, LocationError> = await withCheckedContinuation { continuation in
            writer.async { continuation.resume(returning: self.writePending()) }
        }
        try result.get()
    }

    /// Stops the periodic writes and writes what is pending: call it on shutdown.
    ///
    /// - Throws: the sink's error; what could not be written is lost when the logger goes.
    public func close() async throws(LocationError) {
        state.withLock { $0.closed = true }
        try await flush()
    }

    /// Whether two consecutive fixes are joined by a line: both timed, in order, close
    /// enough in time and not further apart than `maxSpeed` allows.
    private func joins(_ previous: Previous, _ current: Previous) -> Bool {
        guard previous.timed, current.timed else { return false }
        let elapsed = current.time.timeIntervalSince(previous.time)
        guard elapsed >= 0, Duration.seconds(elapsed) <= configuration.maxGap else { return false }
        let distance = greatCircleDistance(
            previous.latitude, previous.longitude, current.latitude, current.longitude)
        return distance <= configuration.maxSpeed * elapsed
    }

    /// Writes what is pending every `flushInterval` until the logger is closed or released.
    ///
    /// A dispatch timer on `writer` rather than a task, so that the writes keep their
    /// pace even when the cooperative thread pool is busy.
    private func schedulePeriodicWrite() {
        let (seconds, attoseconds) = configuration.flushInterval.components
        let nanoseconds = Int(min(Double(seconds) * 1e9 + Double(attoseconds) / 1e9, Double(Int.max)))
        writer.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            guard let self, !self.state.withLock({ $0.closed }) else { return }
            self.writePending()
            self.schedulePeriodicWrite()
        }
    }

    /// Hands the pending records to the sink. Runs on `writer` only.
    @discardableResult
    private func writePending() -> Result<Void, LocationError> {
        dispatchPrecondition(condition: .onQueue(writer))
        let batch = state.withLock { state in
            state.writeScheduled = false
            defer { state.pending = [:] }
            return state.pending
        }
        guard !batch.isEmpty else { return .success(()) }
        do {
            try sink.write(Array(batch.values))
            let recovered = state.withLock { state in
                state.counters.written += batch.count
                defer { state.failing = false }
                return state.failing
            }
            if recovered { log.notice("tile log: writing again") }
            return .success(())
        } catch {
            let (firstFailure, dropped) = state.withLock { state in
                state.counters.failedWrites += 1
                for record in batch.values { state.add(record) }
                var dropped = 0
                if state.pending.count > configuration.maxPendingTiles {
                    dropped = state.pending.count
                    state.counters.dropped += dropped
                    state.pending = [:]
                }
                defer { state.failing = true }
                return (!state.failing, dropped)
            }
            if firstFailure {
                log.error("tile log: \(error.message) Keeping the tiles in memory and retrying.")
            }
            if dropped > 0 {
                log.error("tile log: dropped \(dropped) tiles that could not be written (\(error.message))")
            }
            return .failure(error)
        }
    }
}

/// The haversine distance on a sphere of the Earth's mean radius, metres: within 0.5 %
/// of the geodesic, plenty for a plausibility bound, and several times cheaper than
/// ``Geodesy/distance(latitude1:longitude1:latitude2:longitude2:)`` on the fix path.
private func greatCircleDistance(
    _ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double
) -> Double {
    let radians = Double.pi / 180
    let sinLatitude = sin((latitude2 - latitude1) * radians / 2)
    let sinLongitude = sin((longitude2 - longitude1) * radians / 2)
    let h =
        sinLatitude * sinLatitude
        + cos(latitude1 * radians) * cos(latitude2 * radians) * sinLongitude * sinLongitude
    return 2 * 6_371_008.8 * asin(min(1, h.squareRoot()))
}
