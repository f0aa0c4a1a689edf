import Dispatch
import Foundation
import Logging

/// A ``State`` whose value survives restarts: stored as JSON in `KEY.json` and reloaded at init.
///
/// Writes happen off the caller's path: `modify` hands the new value to a serial
/// writer and returns; the writer encodes and stores the newest value (values
/// superseded before their turn are skipped, never written out of order), at
/// most once per `writeInterval`. ``flush()`` writes what is pending now and
/// waits for it: call it before exiting. Each write is atomic and durable
/// (``FileSystem/save``), in a 0700 directory, mode 0600.
///
/// A stored file that cannot be read or decoded, is larger than `maxBytes`, or
/// holds a value that `validate` refuses, is never lost and never fatal: it is
/// moved aside to `KEY.corrupt-TIMESTAMP`, a warning is logged, and the default
/// value is used. A failed background write is logged once per outage (and again
/// when writing works again) and retried at most once per `writeInterval` (at
/// least once a second) by the next change, or at once by ``flush()``, which throws.
///
/// It has no listeners of its own: react to the ``MonitoredState`` whose values
/// it keeps (for the last fix, `deviceLocation`), and persist from a listener.
public final class PersistentState<Value: Codable & Sendable>: State<Value>, @unchecked Sendable {
    // `@unchecked` only because the superclass is not final; every stored
    // property added here is a `let` of a `Sendable` type (see `State`).

    /// The store the value lives in.
    public let store: AtomicFileStore
    private let writer: Writer

    /// Loads the value stored under `key` in `store`, or uses `defaultValue`.
    ///
    /// - Parameters:
    ///   - key: the file name the value is stored under.
    ///   - defaultValue: the value when nothing (usable) is stored.
    ///   - store: the directory's atomic store.
    ///   - writeInterval: the least time between two writes; changes in between
    ///     are coalesced into the next write (``flush()`` writes at once).
    ///   - maxBytes: the largest stored file taken (at most ``FileSystem/maxFileBytes``).
    ///   - validate: why a decoded value cannot be used, or `nil` when it can.
    ///   - logger: where a stored file moved aside or a failed write is told.
    /// - Throws: ``LocationError`` for a key that is not a plain file name, or
    ///   when an unreadable stored file cannot be moved aside.
    public init(
        key: String, defaultValue: Value, store: AtomicFileStore, writeInterval: Duration = .zero,
        maxBytes: Int = FileSystem.maxFileBytes, validate: (Value) -> String? = { _ in nil },
        logger: Logger = Logger(label: "locationd.state")
    ) throws {
        self.store = store
        let initialValue =
            try Self.load(key: key, from: store, maxBytes: maxBytes, validate: validate, logger: logger)
            ?? defaultValue
        writer = Writer(key: key, store: store, writeInterval: writeInterval, logger: logger)
        super.init(key: key, initialValue: initialValue)
    }

    /// Opens the store in `directory` (created with mode 0700 if missing) and
    /// loads the value stored under `key` there; see the designated initializer.
    public convenience init(
        key: String, defaultValue: Value, directory: String, fileSystem: FileSystem = .live,
        writeInterval: Duration = .zero, maxBytes: Int = FileSystem.maxFileBytes,
        validate: (Value) -> String? = { _ in nil }, logger: Logger = Logger(label: "locationd.state")
    ) throws {
        try self.init(
            key: key, defaultValue: defaultValue, store: AtomicFileStore(directory: directory, fileSystem: fileSystem),
            writeInterval: writeInterval, maxBytes: maxBytes, validate: validate, logger: logger)
    }

    /// Hands the new value to the writer.
    public override func didModify(from old: Value, to new: Value) {
        super.didModify(from: old, to: new)
        writer.submit(new)
    }

    /// Writes the newest value now if it is not stored yet, and waits until it is.
    ///
    /// Blocks the calling thread for the duration of one write at most.
    ///
    /// - Throws: ``LocationError`` when the value cannot be written; it stays
    ///   pending, and the next write or flush tries again.
    public func flush() throws {
        try writer.flush()
    }

    private static func load(
        key: String, from store: AtomicFileStore, maxBytes: Int, validate: (Value) -> String?, logger: Logger
    ) throws -> Value? {
        let problem: String
        do {
            guard let data = try store.read(key: key) else { return nil }
            if data.count > maxBytes {
                problem = "is larger than \(maxBytes) bytes (\(data.count))"
            } else {
                do {
                    let value = try JSONDecoder().decode(Value.self, from: data)
                    if let invalid = validate(value) {
                        problem = "holds no usable value (\(invalid))"
                    } else {
                        return value
                    }
                } catch {
                    problem = "cannot be decoded (\(data.count) bytes: \(error))"
                }
            }
        } catch let error as LocationError where error.kind == .usage {
            throw error
        } catch {
            problem = "cannot be read (\(error))"
        }
        let path = try store.path(forKey: key)
        let aside = try store.moveAside(key: key)
        logger.warning(
            "\(path) \(problem); moved it aside to \(aside) and using the default value",
            metadata: ["key": "\(key)"])
        return nil
    }
}

extension PersistentState {
    /// Writes values in the order they were submitted, on its own serial queue,
    /// skipping values superseded before their turn, at most once per interval.
    private final class Writer: Sendable {
        private struct Pending {
            /// The newest value that is not stored yet.
            var value: Value?
            var writeScheduled = false
            /// When the last write was tried, whether it worked or not.
            var lastWrite: DispatchTime?
            /// Whether the last write failed: the outage has been logged.
            var failing = false
        }

        private let key: String
        private let store: AtomicFileStore
        private let writeInterval: Duration
        private let logger: Logger
        private let queue: DispatchQueue
        private let pending = Locked(Pending())

        init(key: String, store: AtomicFileStore, writeInterval: Duration, logger: Logger) {
            self.key = key
            self.store = store
            self.writeInterval = writeInterval
            self.logger = logger
            queue = DispatchQueue(label: "locationd.state.\(key).writer")
            retryInterval = max(writeInterval, .seconds(1)).dispatchInterval
        }

        /// The least time between two tries while writes fail.
        private let retryInterval: DispatchTimeInterval

        /// The least time after the last try before the next one.
        private func interval(_ pending: Pending) -> DispatchTimeInterval {
            pending.failing ? retryInterval : writeInterval.dispatchInterval
        }

        func submit(_ value: Value) {
            let deadline = pending.withLock { pending -> DispatchTime? in
                pending.value = value
                guard !pending.writeScheduled else { return nil }
                pending.writeScheduled = true
                return pending.lastWrite.map { $0 + interval(pending) } ?? .now()
            }
            if let deadline {
                queue.asyncAfter(deadline: deadline) { self.writeInBackground() }
            }
        }

        func flush() throws {
            try queue.sync {
                guard let value = take() else { return }
                try write(value)
            }
        }

        private func writeInBackground() {
            let (value, tooEarly) = pending.withLock { pending -> (Value?, DispatchTime?) in
                if let lastWrite = pending.lastWrite, lastWrite + interval(pending) > .now() {
                    return (nil, lastWrite + interval(pending))
                }
                pending.writeScheduled = false
                defer { pending.value = nil }
                return (pending.value, nil)
            }
            if let tooEarly {
                queue.asyncAfter(deadline: tooEarly) { self.writeInBackground() }
                return
            }
            guard let value else { return }
            do {
                try write(value)
            } catch {
                // Logged by `write` once per outage.
            }
        }

        private func take() -> Value? {
            pending.withLock { pending in
                defer { pending.value = nil }
                return pending.value
            }
        }

        /// Stores `value`; on failure puts it back as pending unless a newer one came.
        private func write(_ value: Value) throws {
            do {
                let data: Data
                do {
                    data = Data(try JSONLineEncoder().encode(value).utf8)
                } catch {
                    throw LocationError.internalError("cannot encode \(key) as JSON: \(error)")
                }
                try store.write(data, key: key)
                let recovered = pending.withLock { pending in
                    defer { pending.failing = false }
                    pending.lastWrite = .now()
                    return pending.failing
                }
                if recovered { logger.notice("storing \(key) works again", metadata: ["key": "\(key)"]) }
            } catch {
                let first = pending.withLock { pending in
                    if pending.value == nil { pending.value = value }
                    defer { pending.failing = true }
                    pending.lastWrite = .now()
                    return !pending.failing
                }
                if first {
                    logger.error(
                        "cannot store \(key): \(error); retrying at most once a second, logged again when it works",
                        metadata: ["key": "\(key)"])
                }
                throw error
            }
        }
    }
}
