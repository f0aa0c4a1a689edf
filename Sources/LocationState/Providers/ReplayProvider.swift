import Foundation
import LocationFormats
import LocationState

/// Replays a recorded track file (NMEA, gpsd JSON or GPX) as a ``LocationProvider``.
///
/// The file is streamed in chunks, so memory does not grow with its size. Fixes are
/// stamped `source: replay` and paced by their recorded times divided by
/// ``Options/speed`` (no pacing when it is nil: as fast as possible). A jump back in
/// time (the next loop, a receiver reset) restarts the pacing clock. With
/// ``Options/loop`` the file plays again from the start (opened again) until the task is
/// cancelled, or a pass finds nothing to replay. Several files play one after the other
/// as one track (``init(paths:options:progress:)``).
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

    /// The paths of the files to replay, one after the other as one track.
    public let paths: [String]
    /// The path of the first file to replay (the only one, for a provider of one file).
    public var path: String { paths[0] }
    public let options: Options
    /// Called after each chunk with (bytes read in this pass, bytes of every file together).
    private let progress: (@Sendable (Int64, Int64) -> Void)?

    public init(path: String, options: Options = Options(), progress: (@Sendable (Int64, Int64) -> Void)? = nil) {
        self.init(paths: [path], options: options, progress: progress)
    }

    /// Replays `paths` one after the other, as one track: each file's format detected on its
    /// own (or ``Options/format`` for every one), each file after the first starting a new
    /// segment (a `.noFix(nil)` report when the file before it had fixes), as a GPX
    /// `trkseg` does; with ``Options/loop``, all of them again.
    ///
    /// - Precondition: `paths` is not empty.
    public init(paths: [String], options: Options = Options(), progress: (@Sendable (Int64, Int64) -> Void)? = nil) {
        precondition(!paths.isEmpty, "a replay needs a file")
        self.paths = paths
        self.options = options
        self.progress = progress
    }

    public func run(_ emit: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        _ = try await replay(emit)
    }

    /// Replays the files once (or until cancelled with `loop`) and returns the counts of the
    /// whole run, every file's together.
    ///
    /// - Throws: ``LocationError`` when a file cannot be opened or read; `CancellationError`
    ///   when the task is cancelled while pacing.
    public func replay(_ emit: (ProviderEvent) -> Void) async throws -> ReplayStatistics {
        let files = try await replayFiles(emit)
        return files.dropFirst().reduce(into: files[0]) { $0.add($1) }
    }

    /// Replays the files once (or until cancelled with `loop`) and returns the counts of each
    /// file, in the order of ``paths`` (with `loop`, each file's passes added up).
    ///
    /// Every file is checked before the first is read, so that a missing or unreadable one
    /// ends the replay before any fix. `fileEnded` is called with a file's index after its
    /// last report was emitted, before the next file's first.
    ///
    /// - Throws: ``LocationError`` when a file cannot be opened or read; `CancellationError`
    ///   when the task is cancelled while pacing.
    public func replayFiles(
        _ emit: (ProviderEvent) -> Void, fileEnded: (Int) -> Void = { _ in }
    ) async throws -> [ReplayStatistics] {
        var size: Int64 = 0
        for path in paths { size += try ReplayFile.check(path: path) }
        emit(.connected)
        var totals: [ReplayStatistics?] = Array(repeating: nil, count: paths.count)
        var pacer = Pacer(speed: options.speed)
        /// Whether a fix was emitted since the last segment break.
        var fixSinceBreak = false
        var replayed: Bool
        repeat {
            replayed = false
            var done: Int64 = 0
            for (index, path) in paths.enumerated() {
                if index > 0, fixSinceBreak { emit(.noFix(nil)) }
                fixSinceBreak = false
                let statistics = try await replay(
                    ReplayFile(path: path), pacer: &pacer, done: &done, size: size
                ) { event in
                    if case .fix = event { fixSinceBreak = true }
                    emit(event)
                }
                if totals[index] == nil { totals[index] = statistics } else { totals[index]!.add(statistics) }
                replayed = replayed || statistics.records > 0
                fileEnded(index)
            }
            if options.loop { try Task.checkCancellation() }
        } while options.loop && replayed
        return totals.map { $0! }
    }

    /// Replays one file once; `done` counts the bytes read in this pass of every file.
    private func replay(
        _ file: ReplayFile, pacer: inout Pacer, done: inout Int64, size: Int64, _ emit: (ProviderEvent) -> Void
    ) async throws -> ReplayStatistics {
        let format = options.format
        var decoder: (any ReplayDecoding)?
        var pending: [ProviderEvent] = []
        while try file.next({ chunk in
            if decoder == nil {
                decoder = (format ?? ReplayFormat.detect(chunk.prefix(4096))).makeDecoder(
                    source: options.source, device: options.device)
            }
            done += Int64(chunk.count)
            if options.speed == nil {
                decoder!.decode(chunk) { emit(ProviderEvent($0)) }
            } else {
                decoder!.decode(chunk) { pending.append(ProviderEvent($0)) }
            }
        }) {
            progress?(done, size)
            for event in pending { try await pacer.wait(for: event); emit(event) }
            pending.removeAll(keepingCapacity: true)
            try Task.checkCancellation()
        }
        // An empty file is read as the format it would have been detected as.
        guard var finishing = decoder else { return (format ?? .nmea).makeDecoder().statistics }
        if options.speed == nil {
            finishing.finish { emit(ProviderEvent($0)) }
        } else {
            finishing.finish { pending.append(ProviderEvent($0)) }
            for event in pending { try await pacer.wait(for: event); emit(event) }
        }
        return finishing.statistics
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
