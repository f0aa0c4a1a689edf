import Foundation
import LocationState
import Logging

extension ProviderStatus {
    /// The status after `event`: a pure function, the only way the status changes.
    ///
    /// - A fix with a position makes the status live, from any status, with the
    ///   fix's source (this is how an automatic source's switch shows) and its time (a
    ///   fix without one keeps the last fix time known: `lastFix` is always a fix's own).
    /// - A no-fix report (or a fix without a position) means connected without fix.
    /// - The timeout turns a live status stale and changes nothing else.
    /// - Losing the source keeps the last fix time; getting it back waits for a fix.
    /// - A restored fix counts only before the source has said anything.
    public static func reduce(_ status: ProviderStatus, _ event: FreshnessEvent) -> ProviderStatus {
        switch event {
        case .fix(let location):
            guard location.hasPosition else { return reduce(status, .noFix) }
            return .live(location.source, lastFix: location.time ?? status.lastFix)
        case .noFix:
            return .noFix(status.source, lastFix: status.lastFix)
        case .timeoutElapsed:
            guard case .live(let source, let lastFix) = status else { return status }
            return .stale(source, lastFix: lastFix)
        case .providerLost(let reason):
            return .lost(status.source, reason: reason, lastFix: status.lastFix)
        case .providerBack:
            switch status {
            case .connecting, .restored, .lost:
                return .waitingForFix(status.source, lastFix: status.lastFix)
            case .waitingForFix, .live, .noFix, .stale:
                return status
            }
        case .restoredFix(let location):
            guard case .connecting(let source) = status, let time = location.time else { return status }
            return .restored(source, lastFix: time)
        }
    }

    /// The log line for a change from `old` to `self`, or nil when the change
    /// is not worth one (a new fix while live, a repeated status).
    ///
    /// Connection losses are logged by the providers themselves, once per outage.
    public func logLine(after old: ProviderStatus) -> (level: Logger.Level, message: String)? {
        switch (old, self) {
        case (.live(let oldSource, _), .live(let newSource, _)) where oldSource != newSource:
            return (.notice, "fixes now come from the \(newSource.rawValue) source (was \(oldSource.rawValue))")
        case (.live, .live), (.noFix, .noFix), (.stale, .stale), (.lost, .lost), (.waitingForFix, .waitingForFix):
            return nil
        case (_, .live(let source, _)):
            return (.info, "\(source.rawValue) fixes arrive; location is live")
        case (_, .stale(let source, let lastFix)):
            let since = lastFix.map { " since \(UTCCalendar.iso8601($0))" } ?? " within the freshness timeout"
            return (.warning, "no fix from \(source.rawValue)\(since); location is unknown until one arrives")
        case (_, .noFix(let source, _)):
            return (.info, "the \(source.rawValue) receiver reports no fix; location is unknown")
        case (_, .waitingForFix(let source, _)):
            return (.info, "\(source.rawValue) connected; waiting for a fix")
        case (_, .lost), (_, .connecting), (_, .restored):
            return nil
        }
    }
}
