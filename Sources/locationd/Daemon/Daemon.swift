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
    let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
    /// What the source is doing.
    let status: MonitoredState<ProviderStatus>
    private let lock: DaemonLock
    private let tiles: TileLogger
    private let server: ControlServer
    private let startedAt = Date()
    private let counters = FixCounter()

    /// Prepares the data directory, takes its lock and opens the stores.
    init(configuration: DaemonConfiguration, logger: Logger) throws(LocationError) {
        self.configuration = configuration
        self.logger = logger
        let directory = configuration.dataDirectory
        try Daemon.prepare(directory: directory)
        lock = try DaemonLock(directory: directory)
        status = MonitoredState(key: "status", initialValue: .connecting(configuration.initialSource))
        tiles = TileLogger(
            configuration: TileLogger.Configuration(zooms: configuration.zooms),
            sink: TileDatabaseSink(url: URL(fileURLWithPath: directory).appendingPathComponent(TileDatabase.fileName)),
            logger: Logger(label: "locationd.tiles"))
        let deviceLocation = deviceLocation
        let status = status
        let counters = counters
        let startedAt = startedAt
        server = ControlServer(
            path: configuration.resolvedSocketPath,
            responder: ControlResponder(
                last: {
                    ControlAnswers.last(current: deviceLocation.value, lastKnown: counters.lastKnown, now: Date())
                },
                status: {
                    ControlAnswers.status(
                        status.value, fixes: counters.fixes, uptimeSeconds: Date().timeIntervalSince(startedAt))
                },
                watch: { send in
                    let observation = deviceLocation.observe(policy: .all) { change in
                        send(ControlAnswers.watchLine(change.new))
                    }
                    return { observation.cancel() }
                }),
            logger: Logger(label: "locationd.control"))
    }

    /// Runs until SIGTERM or SIGINT, then stops in order.
    func run() async throws(LocationError) {
        let signal = Task { await ShutdownSignal.wait() }
        deviceLocation.addListener(tiles)
        let counting = deviceLocation.observe(policy: .all) { [counters] change in
            if let fix = change.new { counters.count(fix) }
        }
        defer { counting.cancel() }
        do {
            try await server.start()
        } catch let error as LocationError {
            throw error
        } catch {
            throw .cannotWrite(path: server.path, reason: "cannot listen there (\(error))")
        }
        let source = Task.detached { [self] in await self.feed() }
        logger.info("locationd running: source \(configuration.source), data in \(configuration.dataDirectory), control socket \(server.path)")
        SystemdNotifier.notify("READY=1")
        let number = await signal.value
        logger.info("received \(number == SIGTERM ? "SIGTERM" : "SIGINT"); stopping")
        SystemdNotifier.notify("STOPPING=1")
        source.cancel()
        await source.value
        await server.stop()
        do {
            try await tiles.close()
        } catch {
            logger.error("\(error.message)")
        }
        logger.info("stopped")
    }

    /// Runs the configured source, turning its events into `deviceLocation` and `status` changes.
    private func feed() async {
        let provider = configuration.makeProvider(logger: logger)
        do {
            try await provider.run { [deviceLocation, status] event in
                switch event {
                case .fix(let location):
                    deviceLocation ~> location
                    status.modify { $0 = .reduce($0, .fix(location, receivedAt: Date())) }
                case .noFix:
                    deviceLocation ~> nil
                    status.modify { $0 = .reduce($0, .noFix) }
                case .connected:
                    status.modify { $0 = .reduce($0, .providerBack) }
                case .disconnected(let reason):
                    deviceLocation ~> nil
                    status.modify { $0 = .reduce($0, .providerLost(reason: reason)) }
                }
            }
        } catch is CancellationError {
        } catch {
            logger.error("the source stopped: \(error)")
        }
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
