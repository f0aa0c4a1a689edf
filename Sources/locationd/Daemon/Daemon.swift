import Foundation
import LocationState
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The running daemon: a source feeding `deviceLocation`, the listeners, the control socket.
///
/// Built by `locationd run`; ``run()`` returns after SIGTERM or SIGINT, once the
/// source is stopped, every listener flushed and the socket removed.
final class Daemon: Sendable {
    let configuration: DaemonConfiguration
    let logger: Logger
    /// The device's current fix, or nil when there is none (no fix, or none within the freshness timeout).
    var deviceLocation: MonitoredState<Location?> { coordinator.deviceLocation }
    /// What the source is doing.
    var status: MonitoredState<ProviderStatus> { coordinator.status }
    private let coordinator: LocationCoordinator
    private let lock: DaemonLock
    private let tiles: TileLogger
    private let lastFix: LastFixStore
    private let recorder: TrackRecorder?
    private let server: ControlServer
    private let startedAt = Date()
    private let counter = FixCounter()

    /// Prepares the data directory, takes its lock and opens the stores.
    init(configuration: DaemonConfiguration, logger: Logger) throws(LocationError) {
        self.configuration = configuration
        self.logger = logger
        let directory = configuration.dataDirectory
        try Daemon.prepare(directory: directory)
        lock = try DaemonLock(directory: directory)
        coordinator = LocationCoordinator(
            status: MonitoredState(key: "providerStatus", initialValue: .connecting(configuration.initialSource)),
            freshnessTimeout: .milliseconds(Int64(configuration.freshnessTimeoutSeconds * 1000)),
            logger: logger)
        tiles = TileLogger(
            configuration: TileLogger.Configuration(zooms: configuration.zooms),
            sink: TileDatabaseSink(url: URL(fileURLWithPath: directory).appendingPathComponent(TileDatabase.fileName)),
            logger: logger)
        lastFix = try LastFixStore(directory: directory, logger: logger)
        recorder =
            configuration.record
            ? TrackRecorder(directory: URL(fileURLWithPath: directory).appendingPathComponent("tracks"), logger: logger)
            : nil
        let deviceLocation = coordinator.deviceLocation
        let status = coordinator.status
        let counter = counter
        let lastFix = lastFix
        let startedAt = startedAt
        server = ControlServer(
            path: configuration.resolvedSocketPath,
            responder: ControlResponder(
                last: {
                    ControlAnswers.last(
                        current: deviceLocation.value, lastKnown: counter.lastKnown ?? lastFix.lastFix, now: Date())
                },
                status: {
                    ControlAnswers.status(
                        status.value, fixes: counter.fixes, uptimeSeconds: Date().timeIntervalSince(startedAt))
                },
                watch: { send in
                    // The current fix first, as a new watcher wants to know where the
                    // device is now; before any fix there is nothing to say yet.
                    let observation = deviceLocation.observe(policy: .all, sendingCurrentValue: true) { change in
                        if change.old == nil, change.new == nil { return }
                        send(ControlAnswers.watchLine(change.new))
                    }
                    return { observation.cancel() }
                }),
            logger: logger)
    }

    /// Runs until SIGTERM or SIGINT, then stops in order.
    func run() async throws(LocationError) {
        let signal = Task { await ShutdownSignal.wait() }
        if let restored = lastFix.lastFix { coordinator.restore(restored) }
        // Every listener here takes microseconds a fix: the tile database and the last
        // fix file are written from writer queues of their own, the track with at most
        // one write(2) a second. On one serial queue, a fix costs one thread wake-up
        // instead of one per listener, a large share of the daemon's CPU time at 10 Hz.
        let listeners = DispatchQueue(label: "locationd.listeners")
        deviceLocation.addListener(tiles, on: listeners)
        if let recorder { deviceLocation.addListener(recorder, on: listeners) }
        // The fix counter and the last fix store: one attachment for both.
        let bookkeeping = deviceLocation.observe(on: listeners, policy: .all) { [counter, lastFix] change in
            if let fix = change.new { counter.count(fix) }
            lastFix.record(change.new)
        }
        defer { bookkeeping.cancel() }
        do {
            try await server.start()
        } catch let error as LocationError {
            throw error
        } catch {
            throw .cannotWrite(path: server.path, reason: "cannot listen there (\(error))")
        }
        let provider = configuration.makeProvider(logger: logger)
        let source = Task.detached { [coordinator, logger] in
            do {
                try await coordinator.run(provider)
            } catch is CancellationError {
            } catch {
                logger.error("the source stopped: \(error)")
            }
        }
        logger.info(
            "locationd running: source \(configuration.source), data in \(configuration.dataDirectory), control socket \(server.path)"
        )
        SystemdNotifier.notify("READY=1")
        let number = await signal.value
        logger.info("received \(number == SIGTERM ? "SIGTERM" : "SIGINT"); stopping")
        SystemdNotifier.notify("STOPPING=1")
        source.cancel()
        await source.value
        await server.stop()
        await shutDownListeners()
        logger.info("stopped")
    }

    /// Flushes every listener; a failure is logged and the others still flush.
    private func shutDownListeners() async {
        do { try lastFix.flush() } catch { logger.error("\(error.message)") }
        do { try recorder?.close() } catch { logger.error("\(error.message)") }
        do { try await tiles.close() } catch { logger.error("\(error.message)") }
    }

    /// Creates the data directory (0700) when missing and checks that it can be written.
    static func prepare(directory: String) throws(LocationError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .cannotWrite(path: directory, reason: "it is not a directory") }
        } else {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .cannotWrite(path: directory, reason: "cannot create the data directory")
            }
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw .cannotWrite(path: directory, reason: "the data directory is not writable")
        }
    }
}

/// How many fixes the daemon has seen, and the last one.
final class FixCounter: Sendable {
    private let state = Mutex<(fixes: Int, last: Location?)>((0, nil))

    /// Fixes seen since start.
    var fixes: Int { state.withLock { $0.fixes } }
    /// The newest fix seen since start.
    var lastKnown: Location? { state.withLock { $0.last } }

    func count(_ fix: Location) {
        state.withLock { $0 = ($0.fixes + 1, fix) }
    }
}

extension DaemonConfiguration {
    /// The source named in ``ProviderStatus`` before anything arrives.
    var initialSource: FixSource {
        switch source {
        case .auto, .gpsd: .gpsd
        case .simulated: .simulated
        case .replay: .replay
        }
    }

    /// gpsd at the configured address; checks for cancellation five times a second so that shutdown is prompt.
    private func gpsdProvider(logger: Logger) -> GPSDProvider {
        GPSDProvider(host: gpsdHost, port: gpsdPort, pollInterval: .milliseconds(200), logger: logger)
    }

    /// The provider for the configured source.
    func makeProvider(logger: Logger) -> any LocationProvider {
        switch source {
        case .auto:
            AutomaticProvider(gpsd: gpsdProvider(logger: logger), logger: logger)
        case .gpsd:
            gpsdProvider(logger: logger)
        case .simulated:
            SimulatedProvider()
        case .replay(let path):
            ReplayProvider(path: path, options: .init(speed: 1, loop: true))
        }
    }
}
