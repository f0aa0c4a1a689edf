import Foundation
import LocationFormats
import LocationState
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Records the fixes as NMEA 0183 files that `locationd replay` reads back into the same
/// fixes (``NMEAWriter``: a GGA and an RMC per fix). The one exception is what the
/// decoder derives from the fix before, such as `climb`: the first fix of a file has none.
///
/// Files go to a directory (usually `DATA_DIR/tracks`, mode 0700, files 0600), one per
/// UTC day of the fixes (`2026-06-30.nmea`) or one per run, named after the run's first
/// fix (`run-20260630T235500Z.nmea`). Files are only ever appended to, and opened
/// without following symbolic links (a link is refused with one logged line). After
/// a crash the last line may be cut short: the next run starts a new line first, and
/// replay drops the damaged sentence.
///
/// Fixes are buffered and written when ``Configuration/bufferBytes`` are pending, when a
/// fix or change arrives ``Configuration/writeInterval`` after the last write, when a
/// file is left for the next one, and on ``flush()`` and ``close()``: live at 1 Hz every
/// fix is written as it comes, a fast replay in large blocks. Fixes without a position
/// and `nil` (no current fix) are not recorded.
///
/// - Important: when writing fails (disk full, directory not writable), the recorder
///   logs it once, keeps up to ``Configuration/maxPendingBytes`` and retries with the
///   next write; beyond that it drops the oldest pending fixes and logs it. It never
///   truncates or rewrites a file: what a failed write still wrote (a full disk takes
///   part of a block) leaves the pending bytes, and the retry goes on from the next
///   byte, completing a line cut short rather than starting the next sentence on it.
public final class TrackRecorder: Sendable {
    /// How recordings are split into files.
    public enum Split: String, Sendable, CaseIterable {
        /// One file per UTC day of the fix times.
        case day
        /// One file per run of the recorder.
        case run
    }

    /// Where and how to record.
    public struct Configuration: Sendable {
        /// One file per day or per run.
        public var split: Split
        /// Pending bytes that start a write.
        public var bufferBytes: Int
        /// The longest a fix waits for a write once the next fix or change arrives.
        public var writeInterval: Duration
        /// Pending bytes kept while writing fails; past this they are dropped.
        public var maxPendingBytes: Int

        public init(
            split: Split = .day, bufferBytes: Int = 1 << 16, writeInterval: Duration = .seconds(1),
            maxPendingBytes: Int = 1 << 20
        ) {
            self.split = split
            self.bufferBytes = bufferBytes
            self.writeInterval = writeInterval
            self.maxPendingBytes = maxPendingBytes
        }
    }

    private struct State {
        /// The file the pending bytes belong to.
        var file: String?
        /// The UTC day (days since 1970) of `file` when split by day.
        var day: Int?
        /// `file`, open for appending, once written to.
        var descriptor: Int32?
        var pending: [UInt8] = []
        var lastWrite: Date?
        var failing = false
        /// A failed write stopped inside a line of `file`, and `pending` starts with
        /// the rest of that line: the next write completes it rather than ending it.
        var continuesLine = false
    }

    /// The directory the files go to.
    public let directory: URL
    private let configuration: Configuration
    /// ``Configuration/writeInterval`` in seconds.
    private let writeIntervalSeconds: Double
    private let writer = NMEAWriter()
    private let log: Logger
    private let now: @Sendable () -> Date
    private let state = Locked(State())

    /// - Parameters:
    ///   - directory: where the files go; created when missing.
    ///   - configuration: split and buffering.
    ///   - logger: where failures are logged.
    ///   - now: the clock for fixes that carry no time.
    public init(
        directory: URL,
        configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "locationd.tracks"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.directory = directory
        self.configuration = configuration
        writeIntervalSeconds = configuration.writeInterval.inSeconds
        self.log = logger
        self.now = now
    }

    deinit {
        state.withLock { closeFile(&$0) }
    }

    /// Records a fix. Cheap unless a write is due, then one `write(2)`.
    public func record(_ location: Location?) {
        let clock = now()
        state.withLock { state in
            if let location, location.hasPosition {
                append(location, at: location.time ?? clock, &state)
            }
            let elapsed = state.lastWrite.map { clock.timeIntervalSince($0) } ?? .infinity
            if state.pending.count >= configuration.bufferBytes || !(0..<writeIntervalSeconds).contains(elapsed) {
                writePending(&state, at: clock)
            }
            if state.pending.count > configuration.maxPendingBytes {
                dropPending(&state, reason: "writing failed for too long")
            }
        }
    }

    /// Writes what is pending.
    ///
    /// - Throws: the write's error; the fixes then stay pending.
    public func flush() throws(LocationError) {
        let clock = now()
        try state.withLock { state in writePending(&state, at: clock) }.get()
    }

    /// Writes what is pending, syncs the file to disk and closes it: call it on shutdown.
    public func close() throws(LocationError) {
        try flush()
        state.withLock { state in
            if let descriptor = state.descriptor { fsync(descriptor) }
            closeFile(&state)
        }
    }

    /// The files in the directory, oldest first (their names sort by time).
    public func files() -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".nmea") }.sorted().map { directory.appendingPathComponent($0) }
    }

    /// Adds the fix's sentences to the pending bytes of its file, switching files first when it belongs to another.
    private func append(_ location: Location, at time: Date, _ state: inout State) {
        let name: String
        switch configuration.split {
        case .day:
            let day = Int(saturating: (time.timeIntervalSince1970 / 86_400).rounded(.down))
            name = day == state.day ? state.file ?? Self.dayFileName(time) : Self.dayFileName(time)
            state.day = day
        case .run:
            name = state.file ?? Self.runFileName(time)
        }
        if state.file != name {
            writePending(&state, at: now())
            if !state.pending.isEmpty { dropPending(&state, reason: "the previous file could not be written") }
            closeFile(&state)
            state.file = name
        }
        writer.append(location, to: &state.pending)
    }

    @discardableResult
    private func writePending(_ state: inout State, at clock: Date) -> Result<Void, LocationError> {
        guard let file = state.file, !state.pending.isEmpty else { return .success(()) }
        let path = directory.appendingPathComponent(file).path
        do throws(LocationError) {
            let descriptor: Int32
            if let open = state.descriptor {
                descriptor = open
            } else {
                descriptor = try openForAppending(path, repairing: !state.continuesLine)
                state.descriptor = descriptor
            }
            let written = writeAll(descriptor, state.pending, path: path)
            if let error = written.error {
                if written.count > 0 {
                    state.continuesLine = state.pending[written.count - 1] != UInt8(ascii: "\n")
                    state.pending.removeFirst(written.count)
                }
                throw error
            }
            state.pending.removeAll(keepingCapacity: true)
            state.continuesLine = false
            state.lastWrite = clock
            if state.failing {
                state.failing = false
                log.notice("track: writing again to \(path)")
            }
            return .success(())
        } catch {
            closeFile(&state)
            state.lastWrite = clock
            if !state.failing {
                state.failing = true
                log.error("track: \(error.message) Keeping the fixes in memory and retrying.")
            }
            return .failure(error)
        }
    }

    /// Opens (creating, mode 0600) a regular file for appending, never through a
    /// symbolic link; when `repairing` and a crash left its last line cut short,
    /// ends that line so that the next sentence starts clean. Read and write, as the
    /// check reads the last byte.
    private func openForAppending(_ path: String, repairing: Bool) throws(LocationError) -> Int32 {
        try DataDirectory.create(directory)
        let descriptor = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw .symbolicLink(path: path) }
            throw .cannotWrite(path: path, reason: SystemCall.message())
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            closeDescriptor(descriptor)
            throw .cannotWrite(path: path, reason: "it is not a regular file; remove it")
        }
        if repairing, endsInsideALine(descriptor),
            let error = writeAll(descriptor, Array("\r\n".utf8), path: path).error
        {
            closeDescriptor(descriptor)
            throw error
        }
        return descriptor
    }

    private func closeFile(_ state: inout State) {
        if let descriptor = state.descriptor { closeDescriptor(descriptor) }
        state.descriptor = nil
    }

    private func dropPending(_ state: inout State, reason: String) {
        log.error("track: dropped \(state.pending.count) bytes of fixes: \(reason)")
        state.pending.removeAll(keepingCapacity: true)
        state.continuesLine = false
    }

    /// `2026-06-30.nmea`: the UTC day of `time`.
    package static func dayFileName(_ time: Date) -> String {
        UTCCalendar.iso8601(time).prefix(10) + ".nmea"  // 2026-06-30T23:55:00.000Z
    }

    /// `run-20260630T235500Z.nmea`: the UTC second of `time`.
    package static func runFileName(_ time: Date) -> String {
        let iso = UTCCalendar.iso8601(time)  // 2026-06-30T23:55:00.000Z
        let basic = iso.prefix(19).filter { $0 != "-" && $0 != ":" }
        return "run-\(basic)Z.nmea"
    }
}

extension TrackRecorder: StateListener {
    /// Records each change's new value (``record(_:)``), unless it is simulated: a
    /// simulated fix never becomes history (``Location/becomesHistory``), and the track is
    /// what `timeline --rebuild` makes the timeline from.
    public func stateDidChange(_ change: StateChange<Location?>) {
        record(change.new.flatMap { $0.becomesHistory ? $0 : nil })
    }
}

/// Whether the file's last byte is not a line end: a write cut short by a crash.
private func endsInsideALine(_ descriptor: Int32) -> Bool {
    var last: UInt8 = 0
    let size = lseek(descriptor, 0, SEEK_END)
    guard size > 0, pread(descriptor, &last, 1, size - 1) == 1 else { return false }
    return last != UInt8(ascii: "\n")
}

/// Writes all of `bytes`, or as many as the file takes before an error: how many
/// were written, and the error that stopped the rest.
private func writeAll(_ descriptor: Int32, _ bytes: [UInt8], path: String) -> (count: Int, error: LocationError?) {
    let written = bytes.withUnsafeBytes { SystemCall.writeAll(descriptor, $0) }
    guard written.count < bytes.count else { return (written.count, nil) }
    return (written.count, .cannotWrite(path: path, reason: SystemCall.message(written.errorNumber)))
}

/// `close(2)`, named apart from ``TrackRecorder/close()``.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
