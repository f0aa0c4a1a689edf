import Foundation
import LocationState

/// What a source of fixes reports, in the order it happened.
public enum ProviderEvent: Sendable, Hashable {
    /// A reading with a position (2D or 3D fix).
    case fix(Location)
    /// The receiver reports that it has no fix (gpsd mode 1, an NMEA status `V`),
    /// at the given time when the report carried one.
    case noFix(Date?)
    /// The source is reachable (gpsd connection open, file opened).
    case connected
    /// The source went away; `reason` is one sentence for the log.
    case disconnected(reason: String)
}

/// A source of fixes: gpsd, a recorded track, the simulator.
///
/// - Important: `run` delivers every event to `emit` in the order the source
///   produced it, one at a time, never concurrently. It returns when the source
///   is exhausted (a replayed file) and returns promptly when its task is
///   cancelled. A live source never returns on its own: it reports
///   `.disconnected` and reconnects. It throws only errors that make going on
///   pointless (a file that cannot be read).
public protocol LocationProvider: Sendable {
    /// Runs the source until it ends or the calling task is cancelled.
    func run(_ emit: @escaping @Sendable (ProviderEvent) -> Void) async throws
}

extension ProviderEvent {
    /// A recorded fix or no-fix report as a provider reports it.
    public init(_ report: FixReport) {
        switch report {
        case .fix(let location): self = .fix(location)
        case .noFix(let time): self = .noFix(time)
        }
    }
}
