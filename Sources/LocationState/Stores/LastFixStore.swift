import Foundation
import LocationState
import Logging

/// The last good fix, kept across restarts: a ``PersistentState`` keyed `lastFix`
/// (`DATA_DIR/lastFix.json`), written at most once per ``Configuration/writeInterval``.
///
/// At start the stored fix is loaded and presented with `source: restored`: a past
/// fix, never a current one. A new fix replaces it only when it is newer: a fix
/// older than (or as old as) the stored one, one dated more than
/// ``Configuration/futureTolerance`` ahead of the system clock, and one without a
/// time are ignored and logged (the first of a run of the same kind as a notice,
/// the rest at debug level). `nil` (no current fix) and fixes without a position
/// leave the last fix as it is.
///
/// The stored fix is checked like a live one (``storedFixProblem(_:)``): a file larger
/// than ``maxFileBytes``, one that is not JSON, `{}` or any object that is not a
/// timed 2D/3D fix with a latitude and longitude in range, is corrupt: moved aside
/// by ``PersistentState`` (`lastFix.corrupt-TIMESTAMP`), logged, and the store starts
/// empty. A stored fix dated more than ``Configuration/futureTolerance`` ahead of
/// the clock (written while the clock was wrong) is still shown as restored, but
/// does not hold back new fixes: the first live fix replaces it, as gpsd and
/// CoreLocation clients expect a fresh fix to win over a remembered one.
///
/// - Important: call ``flush()`` on shutdown; a write that fails is logged once per
///   outage and retried at most once a second by the next fix, and ``flush()``
///   throws it.
public final class LastFixStore: Sendable {
    /// The key of the stored fix, hence the file `lastFix.json`.
    public static let key = DataDirectory.Name.lastFixKey

    /// The largest `lastFix.json` taken: a fix is a few hundred bytes.
    public static let maxFileBytes = 64 * 1024

    /// Why a stored value cannot be restored as the last fix, or `nil` when it can:
    /// `nil` (nothing stored) or a timed fix that passes ``Location/validationProblem``.
    public static func storedFixProblem(_ stored: Location?) -> String? {
        guard let stored else { return nil }
        if let problem = stored.validationProblem { return problem }
        return stored.time == nil ? "it has no time" : nil
    }

    /// How often to write and what to believe.
    public struct Configuration: Sendable {
        /// The least time between two writes; fixes in between are coalesced.
        ///
        /// Five seconds by default: each write is a new file, two `fsync`s and a rename
        /// (see ``AtomicFileStore``), too dear in CPU and SD card wear once a second; the
        /// file matters only after a crash, and its fix says its own age.
        public var writeInterval: Duration
        /// How far ahead of the system clock a fix may be dated and still be taken.
        public var futureTolerance: Duration

        public init(writeInterval: Duration = .seconds(5), futureTolerance: Duration = .seconds(60)) {
            self.writeInterval = writeInterval
            self.futureTolerance = futureTolerance
        }
    }

    /// Why a fix did not replace the last one.
    public enum Rejection: String, Sendable, CaseIterable {
        /// Older than the stored fix.
        case older
        /// Dated too far ahead of the system clock.
        case future
        /// Without a time, so it cannot be ordered.
        case untimed
    }

    private struct State {
        /// Whether the stored fix is still the one loaded at start.
        var restored: Bool
        /// The time of the newest fix taken or loaded: what a new fix must be newer
        /// than, kept here so that a fix need not copy the stored one to compare.
        var newest: Date?
        /// The kind of the last rejection, until a fix is taken again.
        var rejecting: Rejection?
        var rejected: [Rejection: Int] = [:]
    }

    private let configuration: Configuration
    private let persisted: PersistentState<Location?>
    private let log: Logger
    private let now: @Sendable () -> Date
    private let state: Locked<State>
    /// ``Configuration/futureTolerance`` in seconds.
    private let futureToleranceSeconds: Double

    /// Loads the stored fix from `directory` (created with mode 0700 when missing).
    ///
    /// - Parameters:
    ///   - directory: the data directory.
    ///   - configuration: write interval and future tolerance.
    ///   - fileSystem: ``FileSystem/live``, or an in-memory one in tests.
    ///   - logger: where restores, rejections and failed writes are logged.
    ///   - now: the system clock, against which future fixes are judged.
    /// - Throws: ``LocationError`` when the directory cannot be created or a corrupt
    ///   file cannot be moved aside.
    public init(
        directory: String,
        configuration: Configuration = Configuration(),
        fileSystem: FileSystem = .live,
        logger: Logger = Logger(label: "locationd.lastfix"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(LocationError) {
        do {
            persisted = try PersistentState(
                key: Self.key, defaultValue: nil, directory: directory, fileSystem: fileSystem,
                writeInterval: configuration.writeInterval, maxBytes: Self.maxFileBytes,
                validate: Self.storedFixProblem, logger: logger)
        } catch let error as LocationError {
            throw error
        } catch {
            throw .cannotWrite(path: directory, reason: "\(error)")
        }
        self.configuration = configuration
        futureToleranceSeconds = configuration.futureTolerance.inSeconds
        self.log = logger
        self.now = now
        let stored = persisted.value
        let time = stored?.time
        let tolerance = configuration.futureTolerance.inSeconds
        let fromTheFuture = time.map { $0.timeIntervalSince(now()) > tolerance } ?? false
        state = Locked(State(restored: stored != nil, newest: fromTheFuture ? nil : time))
        if let time {
            if fromTheFuture {
                log.notice(
                    "restored the last fix of \(time), ahead of the system clock; the next fix replaces it")
            } else {
                log.info("restored the last fix of \(time)")
            }
        }
    }

    /// The last good fix: the newest taken since start, else the stored one marked
    /// `source: restored`, else `nil`.
    public var lastFix: Location? {
        state.withLock { state in
            guard var fix = persisted.value else { return nil }
            if state.restored { fix.source = .restored }
            return fix
        }
    }

    /// How many fixes were ignored, by reason, since start.
    public var rejected: [Rejection: Int] { state.withLock { $0.rejected } }

    /// Takes `location` as the last fix if it is newer than the stored one and not
    /// from the future; cheap: the write happens later, on the store's writer.
    public func record(_ location: Location?) {
        guard let location, location.hasPosition, location.source != .restored else { return }
        let verdict: (rejection: Rejection, startsRun: Bool)? = state.withLock { state in
            guard let time = location.time else { return reject(.untimed, &state) }
            if time.timeIntervalSince(now()) > futureToleranceSeconds { return reject(.future, &state) }
            if let newest = state.newest, time <= newest {
                return time < newest ? reject(.older, &state) : nil
            }
            state.newest = time
            state.restored = false
            state.rejecting = nil
            persisted ~> location
            return nil
        }
        guard let verdict else { return }
        let time = location.time.map(UTCCalendar.iso8601) ?? "no time"
        let message: Logger.Message =
            switch verdict.rejection {
            case .older: "ignoring a fix of \(time): older than the last fix"
            case .future: "ignoring a fix dated \(time): ahead of the system clock; is the clock right?"
            case .untimed: "ignoring a fix without a time"
            }
        log.log(level: verdict.startsRun ? .notice : .debug, message)
    }

    /// Writes the newest fix now if it is not stored yet, and waits for the write.
    ///
    /// - Throws: the write's error; the fix stays pending for the next write.
    public func flush() throws(LocationError) {
        do {
            try persisted.flush()
        } catch let error as LocationError {
            throw error
        } catch {
            throw .cannotWrite(path: LastFixStore.key, reason: "\(error)")
        }
    }

    /// Counts a rejection; returns it, marked when it starts a run of its kind.
    private func reject(_ rejection: Rejection, _ state: inout State) -> (rejection: Rejection, startsRun: Bool) {
        state.rejected[rejection, default: 0] += 1
        defer { state.rejecting = rejection }
        return (rejection, state.rejecting != rejection)
    }
}

/// Attach it with ``DeliveryPolicy/latest``: only the newest fix matters, so a busy
/// store may skip the ones in between.
///
/// ```swift
/// deviceLocation.addListener(lastFixStore, policy: .latest)
/// ```
extension LastFixStore: StateListener {
    /// Records each change's new value (``record(_:)``).
    public func stateDidChange(_ change: StateChange<Location?>) {
        record(change.new)
    }
}
