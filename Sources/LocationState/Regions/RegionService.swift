import Dispatch
import Foundation
import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// The daemon's region monitoring, as a `Service`: keeps "regionMembership" derived
/// from `deviceLocation`, logs every transition, runs the hooks, reloads the region
/// file on SIGHUP, and stores the membership on shutdown.
///
/// The region file is read when the service is made: a bad or missing file there is
/// a configuration error (``LocationError`` of kind `.usage`, exit 64). On SIGHUP the
/// file is read again; a bad file then is logged in one line and the regions loaded
/// before stay. Membership of regions that are still in the file (by identifier)
/// survives a reload.
public final class RegionService: Service, Sendable {
    /// The membership, its events and the regions.
    public let monitor: RegionMonitor
    /// The region file.
    public let path: String
    /// Counts reload attempts, good or bad (each one changes it once, after it is done).
    public let reloads = MonitoredState<Int>(key: "regionReloads", initialValue: 0)
    private let deviceLocation: MonitoredState<Location?>
    private let hooks: RegionHooks
    private let logger: Logger
    private let queue = DispatchQueue(label: "locationd.regions")
    private let hangup: SignalSource

    /// Reads the region file and opens the stored membership in `dataDirectory`.
    ///
    /// From here on SIGHUP no longer ends the process: it reloads the region file.
    ///
    /// - Throws: ``LocationError`` (`.usage`) when `configuration` names no region file
    ///   or the file cannot be read or is not valid; (`.cannotWrite`) when the
    ///   membership store cannot be opened.
    public init(
        configuration: RegionConfiguration, deviceLocation: MonitoredState<Location?>, dataDirectory: String,
        logger: Logger
    ) throws(LocationError) {
        guard let path = configuration.regionsPath else { throw .usage("region monitoring needs a regions file") }
        let regions: RegionSet
        do {
            regions = try RegionSet.load(geoJSONFile: path)
        } catch {
            throw .usage(error.message)
        }
        do {
            monitor = try RegionMonitor(
                regions: regions, options: configuration.options, directory: dataDirectory, logger: logger)
        } catch let error as LocationError {
            throw error
        } catch {
            throw .cannotWrite(path: dataDirectory, reason: "cannot open the region membership store (\(error))")
        }
        self.path = path
        self.deviceLocation = deviceLocation
        self.logger = logger
        hooks = RegionHooks(
            onEnter: configuration.onEnter, onLeave: configuration.onLeave, timeout: configuration.hookTimeout,
            logger: logger)
        signal(SIGHUP, SIG_IGN)
        hangup = SignalSource(DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue))
        hangup.source.setEventHandler { [weak self] in self?.reload() }
        hangup.source.resume()
        logger.info("watching \(regions.count) regions from \(path)")
    }

    deinit {
        hangup.source.cancel()
    }

    /// Follows `deviceLocation` until graceful shutdown, then stores the membership.
    public func run() async throws {
        let events = monitor.events.observe(on: queue, policy: .all) { [hooks, logger] change in
            for event in change.new {
                logger.info("\(Self.logLine(event))")
                hooks.run(event)
            }
        }
        let membership = monitor.attach(to: deviceLocation)
        try? await gracefulShutdown()
        hangup.source.cancel()
        membership.cancel()
        events.cancel()
        do {
            try monitor.flush()
        } catch {
            logger.error("cannot store the region membership: \(error)")
        }
    }

    /// Reads the region file again; on success watches the new regions, else logs one
    /// line and keeps the old ones.
    public func reload() {
        do {
            let regions = try RegionSet.load(geoJSONFile: path)
            monitor.replaceRegions(regions)
            logger.info("reloaded \(regions.count) regions from \(path)")
        } catch {
            logger.error("\(error.message); keeping the \(monitor.regions.count) regions loaded before")
        }
        reloads.modify { $0 += 1 }
    }

    /// `entered region home ("Home") at 52.500000 13.400000 (simulated)`.
    static func logLine(_ event: RegionEvent) -> String {
        "\(event.kind == .enter ? "entered" : "left") region \(event.region) (\"\(event.name)\") at "
            + String(format: "%.6f %.6f", event.lat, event.lon) + (event.simulated ? " (simulated)" : "")
    }
}

/// A dispatch signal source, shared between threads.
///
/// `@unchecked` because Dispatch does not mark its source protocol `Sendable`; dispatch
/// objects are thread-safe (their methods may be called from any thread), and the
/// only reference is this `let`.
private final class SignalSource: @unchecked Sendable {
    let source: any DispatchSourceSignal

    init(_ source: any DispatchSourceSignal) {
        self.source = source
    }
}
