import Foundation

/// The distance travelled on one day, for MQTT's "distance today".
public struct DayDistance: Sendable, Hashable {
    /// The day, `YYYY-MM-DD`.
    public var day: String
    /// Metres, of the day's trips.
    public var metres: Double
    /// When the day ends: the first fix at or after it starts another day.
    public var end: Date

    public init(day: String, metres: Double, end: Date) {
        self.day = day
        self.metres = metres
        self.end = end
    }
}
