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
