import Foundation
import LocationState

/// What the location source is doing: one value, never a contradictory mix of flags.
///
/// It changes only through ``reduce(_:_:)``, a pure function of
/// ``FreshnessEvent``s. Each case names the source in use (`gpsd`, `replay`,
/// `simulated`) and, where one is known, the time of the last fix: always the fix's own
/// UTC time, never when it arrived (a fix without a time leaves the last one known).
public enum ProviderStatus: Sendable, Hashable {
    /// Started; the source has not connected yet and no fix is known.
    case connecting(FixSource)
    /// Started with a fix restored from disk at `lastFix`; the source has not connected yet.
    case restored(FixSource, lastFix: Date)
    /// Connected; no fix since connecting.
    case waitingForFix(FixSource, lastFix: Date?)
    /// Fixes arrive; the newest with a time is from `lastFix`.
    case live(FixSource, lastFix: Date?)
    /// Connected; the receiver reports that it has no fix.
    case noFix(FixSource, lastFix: Date?)
    /// Connected, but no fix arrived within the freshness timeout.
    case stale(FixSource, lastFix: Date?)
    /// The source went away (`reason` is one sentence); it is being reconnected.
    case lost(FixSource, reason: String, lastFix: Date?)

    /// The source in use.
    public var source: FixSource {
        switch self {
        case .connecting(let source), .restored(let source, _), .waitingForFix(let source, _),
            .live(let source, _), .noFix(let source, _), .stale(let source, _), .lost(let source, _, _):
            source
        }
    }

    /// Time of the last fix, when one is known.
    public var lastFix: Date? {
        switch self {
        case .connecting: nil
        case .restored(_, let date): date
        case .waitingForFix(_, let date), .live(_, let date), .noFix(_, let date), .stale(_, let date),
            .lost(_, _, let date):
            date
        }
    }

    /// Whether the source is connected (gpsd reachable with a device, a file open).
    public var isConnected: Bool {
        switch self {
        case .connecting, .restored, .lost: false
        case .waitingForFix, .live, .noFix, .stale: true
        }
    }

    /// Whether a current fix is available (the only status in which
    /// `deviceLocation` is not nil).
    public var isLive: Bool {
        if case .live = self { true } else { false }
    }
}

/// What happens to the location source, as the freshness reducer sees it.
public enum FreshnessEvent: Sendable, Hashable {
    /// A fix arrived. A fix without a position counts as ``noFix``.
    case fix(Location)
    /// The receiver reports that it has no fix.
    case noFix
    /// No fix arrived within the freshness timeout since the last one.
    case timeoutElapsed
    /// The source went away; `reason` is one sentence.
    case providerLost(reason: String)
    /// The source is reachable again (or for the first time).
    case providerBack
    /// A fix restored from disk at start (marked `source: .restored`).
    case restoredFix(Location)
}

extension ProviderStatus {
    /// The case's name, as `?STATUS;` and the MQTT status topic report it.
    public var name: String {
        switch self {
        case .connecting: "connecting"
        case .restored: "restored"
        case .waitingForFix: "waiting"
        case .live: "live"
        case .noFix: "nofix"
        case .stale: "stale"
        case .lost: "lost"
        }
    }
}
