import Foundation
import LocationProviders
import LocationRegions
import LocationState
import LocationStores
import Logging

/// The daemon's region monitoring: the regions, "regionMembership" and its events
/// (``monitor``), the hooks, and the reloads. ``RegionService`` runs it: it keeps the
/// membership derived from the epochs, logs every transition, runs the hooks, and
/// stores the membership on shutdown.
///
/// The region file is read when it is made: a bad or missing file there is a
/// configuration error (``LocationError`` of kind `.usage`, exit 64). ``reload()`` (the
/// daemon calls it on SIGHUP) reads it again; a bad file then is logged in one line and
/// the regions loaded before stay. Membership of regions that are still in the file (by
/// identifier) survives a reload. It leaves signals to its owner: the daemon has one
/// handler for SIGHUP, which reloads every part.
public final class RegionMonitoring: Sendable {
    /// The membership, its events and the regions.
    public let monitor: RegionMonitor
    /// The region file.
    public let path: String
    /// Counts reload attempts, good or bad (each one changes it once, after it is done).
    public let reloads = MonitoredState<Int>(key: "regionReloads", initialValue: 0)
    private let hooks: RegionHooks
    private let logger: Logger

    /// Reads the region file and opens the stored membership in `dataDirectory`.
    ///
    /// - Throws: ``LocationError`` (`.usage`) when `configuration` names no region file
    ///   or the file cannot be read or is not valid; (`.cannotWrite`) when the
    ///   membership store cannot be opened.
    public init(configuration: RegionConfiguration, dataDirectory: String, logger: Logger) throws(LocationError) {
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
        self.logger = logger
        hooks = RegionHooks(
            onEnter: configuration.onEnter, onLeave: configuration.onLeave, timeout: configuration.hookTimeout,
            logger: logger)
        logger.info("watching \(regions.count) regions from \(path)")
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

    /// Logs each transition in one line and runs its hook.
    public func report(_ events: [RegionEvent]) {
        for event in events {
            logger.info("\(Self.logLine(event))")
            hooks.run(event)
        }
    }

    /// Stores the membership now; a failure is logged in one line.
    public func storeMembership() {
        do {
            try monitor.flush()
        } catch {
            logger.error("cannot store the region membership: \(error)")
        }
    }

    /// `entered region home ("Home") at 52.500000 13.400000 (simulated)`.
    static func logLine(_ event: RegionEvent) -> String {
        "\(event.kind == .enter ? "entered" : "left") region \(event.region) (\"\(event.name)\") at "
            + String(format: "%.6f %.6f", event.lat, event.lon) + (event.simulated ? " (simulated)" : "")
    }
}
