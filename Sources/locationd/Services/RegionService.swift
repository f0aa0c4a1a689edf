import Dispatch
import Foundation
import LocationProviders
import LocationRegions
import LocationState
import LocationStores
import Logging
import ServiceLifecycle

/// The daemon's region monitoring, as a `Service`: keeps "regionMembership" derived
/// from `deviceLocation`, logs every transition, runs the hooks, and stores the
/// membership on shutdown.
///
/// The region file is read when the service is made: a bad or missing file there is
/// a configuration error (``LocationError`` of kind `.usage`, exit 64). ``reload()``
/// (the daemon calls it on SIGHUP) reads it again; a bad file then is logged in one
/// line and the regions loaded before stay. Membership of regions that are still in
/// the file (by identifier) survives a reload. The service leaves signals to its
/// owner: the daemon has one handler for SIGHUP, which reloads every part.
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

    /// Reads the region file and opens the stored membership in `dataDirectory`.
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
        logger.info("watching \(regions.count) regions from \(path)")
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
