import Foundation
import LocationFormats
import LocationState
import Logging

/// Live fixes from gpsd, read through libgps on a thread of its own.
///
/// Connects to gpsd at `host`:`port`, asks it to stream JSON (`?WATCH`), and maps
/// each TPV report into a ``Location`` marked `source: .gpsd` with every field
/// gpsd gives; satellites used and HDOP come from the latest SKY report.
///
/// Events, in order:
/// - `.connected` once gpsd has a device (a DEVICES or DEVICE report naming
///   one, or a TPV);
/// - `.fix` for a TPV with a 2D or 3D position, `.noFix` for a TPV without;
/// - `.disconnected(reason:)` once per outage: gpsd unreachable, gone, not
///   gpsd at all (something else on the port, garbage instead of a greeting),
///   or gpsd without a device. The outage is logged once, as a warning; the
///   provider then reconnects with capped exponential backoff until gpsd is
///   back, and never returns on its own.
///
/// - Important: the reader blocks in libgps, so it runs on a dedicated `Thread`,
///   not on the cooperative pool. It waits for input at most `pollInterval` at a
///   time and then checks for cancellation, so an idle provider costs next to
///   no CPU and stops within `pollInterval` of its task's cancellation. Name
///   resolution and the TCP connect block until they finish or fail; a cancelled
///   provider waits for them at most `pollInterval` + 0.25 s, and the thread then
///   ends on its own without emitting anything. The thread
///   blocks SIGPIPE for itself, since libgps writes to its socket without
///   `MSG_NOSIGNAL`; the process's other threads are not affected.
public struct GPSDProvider: LocationProvider {
    /// gpsd's host name or address.
    public var host: String
    /// gpsd's TCP port.
    public var port: Int
    /// Delays between reconnection attempts.
    public var backoff: Backoff
    /// Longest time the reader waits for input before it checks for cancellation.
    public var pollInterval: Duration
    /// How long a new connection may take to send gpsd's VERSION greeting.
    public var greetingTimeout: Duration
    private let logger: Logger
    private let connector: GPSDConnector

    /// - Parameters:
    ///   - host: gpsd's host (default `localhost`).
    ///   - port: gpsd's TCP port (default 2947).
    ///   - backoff: delays between reconnection attempts (default 0.5 s doubling up to 10 s).
    ///   - pollInterval: longest wait for input between cancellation checks (default 0.5 s).
    ///   - greetingTimeout: how long a connection may stay silent before it is
    ///     judged not to be gpsd (default 5 s).
    ///   - logger: where connection changes are logged.
    public init(
        host: String = "localhost",
        port: Int = 2947,
        backoff: Backoff = Backoff(),
        pollInterval: Duration = .milliseconds(500),
        greetingTimeout: Duration = .seconds(5),
        logger: Logger = Logger(label: "locationd.gpsd")
    ) {
        self.init(
            host: host, port: port, backoff: backoff, pollInterval: pollInterval,
            greetingTimeout: greetingTimeout, logger: logger,
            connector: .libgps(readTimeout: pollInterval))
    }

    /// A provider that opens its sessions through `connector` (scripted sessions in tests).
    package init(
        host: String, port: Int, backoff: Backoff, pollInterval: Duration, greetingTimeout: Duration,
        logger: Logger, connector: GPSDConnector
    ) {
        self.host = host
        self.port = port
        self.backoff = backoff
        self.pollInterval = pollInterval
        self.greetingTimeout = greetingTimeout
        self.logger = logger
        self.connector = connector
    }

    public func run(_ emit: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        let stop = StopSignal()
        // Nothing is emitted once the provider is stopped, even by a reader that
        // comes back from a long connect after `run` has returned.
        let reader = GPSDReader(provider: self, stop: stop) { event in
            if !stop.isStopped { emit(event) }
        }
        let finished = ReaderFinished()
        let patience = (pollInterval + .milliseconds(250)).dispatchInterval
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                finished.wait(with: continuation)
                let thread = Thread {
                    var reader = reader
                    reader.run()
                    finished.signal()
                }
                thread.name = "locationd.gpsd"
                thread.start()
            }
        } onCancel: {
            stop.stop()
            // A reader blocked in name resolution or in a TCP connect to a host that
            // never answers sees `stop` only when the system gives up, minutes later.
            // The provider stops anyway; the thread ends on its own, emitting nothing.
            DispatchQueue.global().asyncAfter(deadline: .now() + patience) { finished.signal() }
        }
    }

    /// The end of a reader: by the thread, or by a cancellation that stopped waiting
    /// for it. The first of the two resumes `run`, once.
    private final class ReaderFinished: Sendable {
        private enum Stage { case waiting, continuation(CheckedContinuation<Void, Never>), done }
        private let stage = Locked<Stage>(.waiting)

        func wait(with continuation: CheckedContinuation<Void, Never>) {
            let resumeNow = stage.withLock { stage -> Bool in
                guard case .waiting = stage else { return true }
                stage = .continuation(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }

        func signal() {
            let continuation = stage.withLock { stage -> CheckedContinuation<Void, Never>? in
                defer { stage = .done }
                if case .continuation(let continuation) = stage { return continuation }
                return nil
            }
            continuation?.resume()
        }
    }

    /// The reader thread's loop: connect, greet, read and map reports, reconnect.
    private struct GPSDReader: Sendable {
        let provider: GPSDProvider
        let stop: StopSignal
        let emit: @Sendable (ProviderEvent) -> Void
        private var backoff: Backoff
        /// Whether `.connected` was emitted and not yet followed by `.disconnected`.
        private var isUp = false
        /// Whether `.disconnected` was emitted for the current outage.
        private var outageReported = false
        /// Devices gpsd has, from DEVICES and DEVICE reports.
        private var devices: Set<String> = []
        private var satellitesUsed: Int?
        private var hdop: Double?
        private var loggedUnrecognized = false

        init(provider: GPSDProvider, stop: StopSignal, emit: @escaping @Sendable (ProviderEvent) -> Void) {
            self.provider = provider
            self.stop = stop
            self.emit = emit
            self.backoff = provider.backoff
        }

        private var address: String { "\(provider.host):\(provider.port)" }
        private var logger: Logger { provider.logger }

        mutating func run() {
            Self.blockSIGPIPE()
            // The reader's last word: nothing it does comes after this line.
            defer { logger.debug("stopped reading gpsd at \(address)") }
            while !stop.isStopped {
                do throws(GPSDConnectionError) {
                    let session = try provider.connector.connect(provider.host, provider.port)
                    defer { session.close() }
                    try serve(session)
                } catch {
                    let message = LocationError.gpsdUnreachable(
                        host: provider.host, port: provider.port, reason: error.reason
                    ).message
                    markDown(reason: message, then: "Retrying with backoff.")
                    stop.wait(for: backoff.next())
                }
            }
        }

        /// Reads one connection until it fails (throws) or the provider stops (returns).
        private mutating func serve(_ session: any GPSDSession) throws(GPSDConnectionError) {
            guard let release = try greet(session) else { return }
            backoff.reset()
            devices = []
            satellitesUsed = nil
            hdop = nil
            loggedUnrecognized = false
            logger.debug("connected to gpsd \(release) at \(address)")
            let connected = ContinuousClock.now
            while !stop.isStopped {
                if let message = try session.next(timeout: provider.pollInterval) { handle(message) }
                // gpsd without a device: watch again on a new connection now and then, which
                // makes gpsd open every device it has, in case one it was given while this
                // client watched could not be opened then (gpsd forgets such a device).
                if !isUp, devices.isEmpty, ContinuousClock.now - connected >= Self.devicelessRewatch {
                    logger.debug("gpsd at \(address) still has no device; watching again")
                    return
                }
            }
        }

        /// How long a connection to gpsd without a device lasts before the next.
        static let devicelessRewatch = Duration.seconds(5)

        /// Waits for gpsd's VERSION greeting; returns its release, or nil when stopped.
        private func greet(_ session: any GPSDSession) throws(GPSDConnectionError) -> String? {
            let deadline = ContinuousClock.now + provider.greetingTimeout
            while !stop.isStopped {
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else {
                    throw GPSDConnectionError(
                        reason:
                            "something accepted the connection but sent no gpsd greeting within \(provider.greetingTimeout)"
                    )
                }
                guard let message = try session.next(timeout: min(provider.pollInterval, remaining)) else { continue }
                guard case .version(let release) = message else {
                    throw GPSDConnectionError(reason: "the peer does not speak gpsd's protocol: it sent \(message)")
                }
                return release
            }
            return nil
        }

        private mutating func handle(_ message: GPSDMessage) {
            switch message {
            case .version, .other:
                break
            case .devices(let paths):
                devices = Set(paths.filter { !$0.isEmpty })
                updateDevices()
            case .device(let path, let active):
                if active { devices.insert(path) } else { devices.remove(path) }
                updateDevices()
            case .tpv(var location):
                markUp()
                guard location.hasPosition else {
                    emit(.noFix(location.time))
                    return
                }
                location.satellitesUsed = satellitesUsed
                location.hdop = hdop
                emit(.fix(location))
            case .sky(let used, let dop):
                satellitesUsed = used
                hdop = dop
            case .error(let text):
                logger.warning("gpsd at \(address) reported an error: \(text)")
            case .unrecognized(let excerpt):
                guard !loggedUnrecognized else { return }
                loggedUnrecognized = true
                logger.warning(
                    "gpsd at \(address) sent a line that is not a gpsd report; ignoring such lines: \(excerpt)")
            }
        }

        private mutating func updateDevices() {
            if devices.isEmpty {
                markDown(reason: "gpsd at \(address) has no GPS device.", then: "Waiting for one.")
            } else {
                markUp()
            }
        }

        /// Reports `.connected` unless already up.
        private mutating func markUp() {
            guard !isUp else { return }
            if outageReported {
                logger.notice("gpsd at \(address) is back with a device")
            }
            isUp = true
            outageReported = false
            emit(.connected)
        }

        /// Reports `.disconnected` and logs a warning, once per outage.
        private mutating func markDown(reason: String, then next: String) {
            isUp = false
            guard !outageReported else {
                logger.debug("still no gpsd: \(reason)")
                return
            }
            outageReported = true
            logger.warning("\(reason) \(next)")
            emit(.disconnected(reason: reason))
        }

        /// Blocks SIGPIPE on the calling thread: a write to a closed socket then
        /// fails with EPIPE instead of killing the process.
        private static func blockSIGPIPE() {
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &set, nil)
        }
    }
}
