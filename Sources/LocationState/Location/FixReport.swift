import Foundation

/// What a reader of recorded fixes (NMEA, gpsd JSON, GPX) reports, in order: a fix, or
/// that the receiver had none.
///
/// Providers hand these on as their own events; kept apart so that the readers of
/// each format need nothing of the providers.
public enum FixReport: Sendable, Hashable {
    /// A reading with a position (2D or 3D fix).
    case fix(Location)
    /// The receiver reported that it had no fix, at the given time when the report carried one
    /// (for a GPX track, a new segment: the track was interrupted).
    case noFix(Date?)
}
