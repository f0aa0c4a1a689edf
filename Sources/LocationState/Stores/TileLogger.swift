import Dispatch
import Foundation
import LocationState
import Logging

/// Logs the slippy-map tiles the device passes through, at a few zooms, into a ``TileSink``.
///
/// For each fix with a position, the tile at every configured zoom is recorded. Two
/// consecutive fixes are joined by a straight line in Web Mercator tile space, and
/// every tile on that line is recorded too, so a fast move skips none; they are not
/// joined when the time between them exceeds ``Configuration/maxGap``, when the
/// implied speed exceeds ``Configuration/maxSpeed``, when either has no time, or when
/// `nil` (no current fix: the receiver lost its fix, a GPX track segment ended) came
/// between them.
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
///   ``record(_:)`` never fails, and blocks on the sink only while a write is under
///   way and ``Configuration/maxBufferedTiles`` are already pending: a replay at full
///   speed then waits for SQLite, so memory stays bounded whatever the history
///   (1.85 M distinct tiles took 170-318 MB); a receiver at 1-10 Hz never gets there.
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
        /// Pending tiles past which ``TileLogger/record(_:)`` waits for the write under way.
        public var maxBufferedTiles: Int

        public init(
            zooms: [Int] = [14, 17],
            maxGap: Duration = .seconds(60),
            maxSpeed: Double = 100,
            maxEph: Double? = 50,
            batchSize: Int = 500,
            flushInterval: Duration = .seconds(10),
            maxPendingTiles: Int = 100_000,
            maxBufferedTiles: Int = 20_000
        ) {
            self.zooms = zooms
            self.maxGap = maxGap
            self.maxSpeed = maxSpeed
            self.maxEph = maxEph
            self.batchSize = batchSize
            self.flushInterval = flushInterval
            self.maxPendingTiles = maxPendingTiles
            self.maxBufferedTiles = maxBufferedTiles
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
        /// The cosine of `latitude`, for the distance to the next fix.
        var cosLatitude: Double
        /// The position in Web Mercator at zoom 0 (``TilePoint/project(latitude:longitude:)``).
        var x: Double
        var y: Double
    }

    private struct State {
        var previous: Previous?
        /// `nil` was recorded after `previous`: the next fix is not joined to it.
        var interrupted = false
        /// The previous fix's point at each zoom, in the order of the configured zooms;
        /// meaningful once `previous` is set.
        var points: [TilePoint]
        /// Per zoom, the stay in the previous fix's tile that is not pending yet: a fix
        /// that stays in its tiles only widens it, without hashing a tile.
        var stays: [TileRecord?]
        var pending: [Tile: TileRecord] = [:]
        var writeScheduled = false
        /// Whether the writer is handing a batch to the sink.
        var writing = false
        /// Callers of `record` waiting for the write under way to end.
        var waiting = 0
        var failing = false
        var closed = false
        var counters = Counters()

        init(zooms: [Int]) {
            points = zooms.map { TilePoint(projectedX: 0, projectedY: 0, zoom: $0) }
            stays = Array(repeating: nil, count: zooms.count)
        }

        /// Adds a record to the pending batch, merged with what is pending for its tile.
        mutating func add(_ record: TileRecord) {
            if let index = pending.index(forKey: record.tile) {
                pending.values[index].merge(record)
            } else {
                pending[record.tile] = record
            }
        }

        /// Widens the stay at zoom `index` in `tile` to the time from `start` to `end`.
        mutating func stay(_ index: Int, in tile: Tile, from start: Date, to end: Date) {
            let record = TileRecord(tile: tile, firstSeen: start, lastSeen: end, visits: 0)
            if stays[index] != nil {
                stays[index]!.merge(record)
            } else {
                stays[index] = record
            }
        }

        /// Moves the stay at zoom `index` into the pending batch.
        mutating func settleStay(_ index: Int) {
            guard let stay = stays[index] else { return }
            stays[index] = nil
            add(stay)
        }

        /// Moves every stay into the pending batch.
        mutating func settleStays() {
            for index in stays.indices { settleStay(index) }
        }
    }

    private let configuration: Configuration
    private let sink: any TileSink
    private let log: Logger
    private let now: @Sendable () -> Date
    private let state: Locked<State>
    private let writer = DispatchQueue(label: "locationd.tiles.writer")
    /// Wakes callers of ``record(_:)`` that wait for the writer (``Configuration/maxBufferedTiles``).
    private let writeEnded = DispatchSemaphore(value: 0)
    /// ``Configuration/maxGap`` in seconds.
    private let maxGapSeconds: Double

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
        state = Locked(State(zooms: configuration.zooms))
        maxGapSeconds = configuration.maxGap.inSeconds
        schedulePeriodicWrite()
    }

    /// The totals so far.
    public var counters: Counters { state.withLock { $0.counters } }

    /// Records a fix: cheap, never blocks on the sink. `nil` (no current fix) and fixes
    /// without a position or with too large an `eph` are skipped; after `nil`, the next
    /// fix is not joined to the one before.
    public func record(_ location: Location?) {
        guard let location else {
            state.withLock { state in
                state.counters.skipped += 1
                state.interrupted = true
            }
            return
        }
        guard location.hasPosition, let latitude = location.lat, let longitude = location.lon,
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
        let timed = location.time != nil
        let startWrite = state.withLock { state -> (write: Bool, wait: Bool) in
            let previous = state.previous
            let current: Previous
            if let previous, previous.latitude == latitude, previous.longitude == longitude {
                // Standing still: the same point in every zoom.
                current = Previous(
                    latitude: latitude, longitude: longitude, time: time, timed: timed,
                    cosLatitude: previous.cosLatitude, x: previous.x, y: previous.y)
            } else {
                let (x, y) = TilePoint.project(latitude: latitude, longitude: longitude)
                current = Previous(
                    latitude: latitude, longitude: longitude, time: time, timed: timed,
                    cosLatitude: cos(latitude * (Double.pi / 180)), x: x, y: y)
            }
            let joined = !state.interrupted && previous.map { joins($0, current) } ?? false
            state.interrupted = false
            state.counters.fixes += 1
            if !joined { state.counters.unjoined += 1 }
            for (index, zoom) in configuration.zooms.enumerated() {
                let point = TilePoint(projectedX: current.x, projectedY: current.y, zoom: zoom)
                let tile = point.tile
                let before = previous == nil ? nil : state.points[index]
                if joined, let previous, let before, before.tile == tile {
                    state.stay(index, in: tile, from: previous.time, to: time)
                } else if joined, let previous, let before {
                    state.settleStay(index)
                    let elapsed = time.timeIntervalSince(previous.time)
                    func at(_ fraction: Double) -> Date { previous.time.addingTimeInterval(elapsed * fraction) }
                    // The first crossing is the tile the device was already in.
                    var entered = false
                    before.forEachCrossing(to: point) { crossing in
                        state.add(
                            TileRecord(
                                tile: crossing.tile, firstSeen: at(crossing.enter), lastSeen: at(crossing.exit),
                                visits: entered ? 1 : 0))
                        entered = true
                    }
                } else {
                    state.settleStay(index)
                    state.add(
                        TileRecord(tile: tile, firstSeen: time, lastSeen: time, visits: tile == before?.tile ? 0 : 1))
                }
                state.points[index] = point
            }
            state.previous = current
            guard !state.failing, state.pending.count >= configuration.batchSize else { return (false, false) }
            let wait =
                state.pending.count >= configuration.maxBufferedTiles && (state.writing || state.writeScheduled)
            if wait { state.waiting += 1 }
            guard !state.writeScheduled else { return (false, wait) }
            state.writeScheduled = true
            return (true, wait)
        }
        if startWrite.write { writer.async { self.writePending() } }
        if startWrite.wait { writeEnded.wait() }
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
        guard elapsed >= 0, elapsed <= maxGapSeconds else { return false }
        return Self.greatCircle(from: previous, to: current, isWithin: configuration.maxSpeed * elapsed)
    }

    /// Whether the great-circle distance between two fixes is at most `bound` metres.
    ///
    /// The distance is `2R·asin(√h)`; since `√h ≤ asin(√h) ≤ √h·π/2`, the arcsine is
    /// needed only when the bound falls between those two.
    private static func greatCircle(from start: Previous, to end: Previous, isWithin bound: Double) -> Bool {
        let h = Geodesy.haversine(
            start.latitude, start.longitude, end.latitude, end.longitude, cosLatitude1: start.cosLatitude,
            cosLatitude2: end.cosLatitude)
        let chord = 2 * Geodesy.meanRadius * min(1, h.squareRoot())
        if chord > bound { return false }
        if chord * (Double.pi / 2) <= bound { return true }
        return Geodesy.greatCircleDistance(haversine: h) <= bound
    }

    /// Writes what is pending every `flushInterval` until the logger is closed or released.
    ///
    /// A dispatch timer on `writer` rather than a task, so that the writes keep their
    /// pace even when the cooperative thread pool is busy.
    private func schedulePeriodicWrite() {
        writer.asyncAfter(deadline: .now() + configuration.flushInterval.dispatchInterval) { [weak self] in
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
            state.settleStays()
            state.writing = !state.pending.isEmpty
            defer { state.pending = [:] }
            return state.pending
        }
        guard !batch.isEmpty else { return .success(()) }
        defer {
            let waiting = state.withLock { state in
                state.writing = false
                defer { state.waiting = 0 }
                return state.waiting
            }
            for _ in 0..<waiting { writeEnded.signal() }
        }
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
