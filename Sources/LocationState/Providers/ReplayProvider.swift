import Foundation
import LocationFormats
import LocationState

/// Replays a recorded track file (NMEA, gpsd JSON or GPX) as a ``LocationProvider``.
///
/// The file is streamed in chunks, so memory does not grow with its size. Fixes are
/// stamped `source: replay` and paced by their recorded times divided by
/// ``Options/speed`` (no pacing when it is nil: as fast as possible). A jump back in
/// time (the next loop, a receiver reset) restarts the pacing clock. With
/// ``Options/loop`` the file plays again from the start until the task is cancelled.
public struct ReplayProvider: LocationProvider {
    /// How to replay.
    public struct Options: Sendable, Hashable {
        /// The file's format; nil: detected from its first bytes.
        public var format: ReplayFormat?
        /// Playback speed as a multiple of real time (1: as recorded); nil: as fast as possible.
        public var speed: Double?
        /// Whether to start over at the end of the file.
        public var loop: Bool
        /// The `source` of every fix.
        public var source: FixSource
        /// The `device` of every fix that names none.
        public var device: String?

        public init(
            format: ReplayFormat? = nil, speed: Double? = 1, loop: Bool = false, source: FixSource = .replay,
            device: String? = nil
        ) {
            self.format = format
            self.speed = speed
            self.loop = loop
            self.source = source
            self.device = device
        }
    }

    /// The path of the file to replay.
    public let path: String
    public let options: Options
    /// Called after each chunk with (bytes read in this pass, file size in bytes).
    private let progress: (@Sendable (Int64, Int64) -> Void)?

    public init(path: String, options: Options = Options(), progress: (@Sendable (Int64, Int64) -> Void)? = nil) {
        self.path = path
        self.options = options
        self.progress = progress
    }

    public func run(_ emit: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        _ = try await replay(emit)
    }

    /// Replays the file once (or until cancelled with `loop`) and returns the counts of the whole run.
    ///
    /// - Throws: ``LocationError`` when the file cannot be opened or read; `CancellationError`
    ///   when the task is cancelled while pacing.
    public func replay(_ emit: (ProviderEvent) -> Void) async throws -> ReplayStatistics {
        let file = try ReplayFile(path: path)
        emit(.connected)
        var total: ReplayStatistics?
        var pacer = Pacer(speed: options.speed)
        repeat {
            var format = options.format
            var decoder: (any ReplayDecoding)?
            var done: Int64 = 0
            var pending: [ProviderEvent] = []
            while try file.next({ chunk in
                if decoder == nil {
                    let detected = format ?? ReplayFormat.detect(chunk.prefix(4096))
                    format = detected
                    decoder = detected.makeDecoder(source: options.source, device: options.device)
                }
                done += Int64(chunk.count)
                if options.speed == nil {
                    decoder!.decode(chunk) { emit(ProviderEvent($0)) }
                } else {
                    decoder!.decode(chunk) { pending.append(ProviderEvent($0)) }
                }
            }) {
                progress?(done, file.size)
                for event in pending { try await pacer.wait(for: event); emit(event) }
                pending.removeAll(keepingCapacity: true)
                try Task.checkCancellation()
            }
            if var finishing = decoder {
                if options.speed == nil {
                    finishing.finish { emit(ProviderEvent($0)) }
                } else {
                    finishing.finish { pending.append(ProviderEvent($0)) }
                    for event in pending { try await pacer.wait(for: event); emit(event) }
                    pending.removeAll()
                }
                if total == nil { total = finishing.statistics } else { total!.add(finishing.statistics) }
            }
            if options.loop {
                try Task.checkCancellation()
                try file.rewind()
            }
        } while options.loop && (total?.records ?? 0) > 0
        // An empty file is read as the format it would have been detected as.
        return total ?? (options.format ?? .nmea).makeDecoder().statistics
    }

    /// Sleeps until each fix is due: recorded time since the first fix, divided by the speed.
    ///
    /// A fix dated before the one before, or more than ``longestWait`` after it, is not
    /// waited for: the pacing starts over from it. A gap of days replayed in real time would
    /// stall the replay for days, and a misdated fix (a year 2099 amid today's) for good.
    package struct Pacer {
        /// The longest gap between two fixes that is waited for, seconds of track time.
        static let longestWait = 86_400.0

        let speed: Double?
        private var origin: (recorded: Date, wall: ContinuousClock.Instant)?
        private var last: Date?

        init(speed: Double?) {
            self.speed = speed
        }

        mutating func wait(for event: ProviderEvent) async throws {
            guard let speed, speed > 0, case .fix(let location) = event, let time = location.time else { return }
            let clock = ContinuousClock()
            if let last, time < last || time.timeIntervalSince(last) > Self.longestWait { origin = nil }
            last = time
            guard let origin else {
                self.origin = (time, clock.now)
                return
            }
            let offset = time.timeIntervalSince(origin.recorded) / speed
            // A wait no `Duration` holds (days of track at a tiny speed) starts over too.
            guard offset.isFinite, offset < 1e12 else {
                self.origin = (time, clock.now)
                return
            }
            try await clock.sleep(until: origin.wall.advanced(by: .seconds(offset)), tolerance: .milliseconds(5))
        }
    }
}
