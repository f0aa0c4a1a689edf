import Foundation
import LocationProviders
import LocationState
import LocationStores
import LocationUplinks

extension DaemonContext {
    /// `?STATUS;`'s answer for `value`, with the daemon's counts, uptime and MQTT state
    /// (and `tiles`, for the HTTP API's).
    func statusAnswer(_ value: ProviderStatus, tiles: [TileZoomSummary]? = nil, now: Date = Date()) -> String {
        ControlAnswers.status(
            value, fixes: counter.fixes, uptimeSeconds: now.timeIntervalSince(startedAt),
            motion: timeline?.motion.value, ignoredFixes: timeline?.tracker.ignored,
            mqtt: mqtt?.snapshot, uplinks: uplinks?.statuses.withLock { $0 },
            tiles: tiles)
    }
}

extension DaemonContext {
    /// The uplinks' states as a JSON array, as `?STATUS;`'s `uplinks` (`/api/v1/uplinks`);
    /// nil when no uplink is configured.
    var uplinksJSON: (@Sendable () -> String)? {
        guard let uplinks else { return nil }
        return { ControlAnswers.line(uplinks.statuses.withLock { $0 }) }
    }
}
