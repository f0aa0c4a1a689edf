import Foundation

/// The odometer: the sum of the trips' distances, so a parked device's jitter (which is in
/// no trip) adds nothing, set once to a vehicle's reading.
///
/// It is not a counter that is kept up: a reading is made from the stored trips and the
/// setting, so it is the same after a restart, a killed process or a `timeline --rebuild`
/// (which keeps the setting). A trip adds its whole distance from its start.
public struct Odometer: Sendable, Equatable {
    /// When the reading was set; nil when it never was: the odometer then reads 0 before
    /// the first trip.
    public var setAt: Date?
    /// The reading at ``setAt``, metres.
    public var setMetres: Double

    public init(setAt: Date? = nil, setMetres: Double = 0) {
        self.setAt = setAt
        self.setMetres = setMetres
    }

    /// The largest reading that can be set, kilometres: more than any vehicle's odometer shows.
    public static let maxKilometres = 10_000_000.0

    /// The setting that makes the odometer read `metres` now, when the trip under way (if
    /// any) is `openTrip` and the timeline's last fix is at `lastFix`: set at the open trip's
    /// start, less what it has covered, so the trip's whole distance counts after it; else
    /// at the last fix (the timeline's own clock), else at `now`.
    public static func setting(metres: Double, openTrip: Trip?, lastFix: Date?, now: Date) -> Odometer {
        if let openTrip { return Odometer(setAt: openTrip.start, setMetres: metres - openTrip.distance) }
        return Odometer(setAt: lastFix ?? now, setMetres: metres)
    }
}
