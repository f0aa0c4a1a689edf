import Foundation
import LocationState

extension TimelineEntry {
    /// One line for people, in the style of a replayed fix's text line (no newline):
    /// `2026-11-23T07:00:00.000Z STAY 47.370000 8.540000 until 2026-11-23T08:00:00.000Z (1 h 0 min, 3600 fixes, radius 3 m)`,
    /// `2026-11-23T08:00:00.000Z TRIP 12.30 km until 2026-11-23T08:25:00.000Z (25 min 0 s, motorized, avg 29.5 km/h, max 80.0 km/h, 1500 fixes)`.
    public var text: String {
        switch self {
        case .stay(let stay):
            "\(UTCCalendar.iso8601(stay.start)) STAY " + String(format: "%.6f %.6f", stay.latitude, stay.longitude)
                + " until \(UTCCalendar.iso8601(stay.end)) (\(Self.duration(stay.duration)), \(stay.fixes) fixes, "
                + String(format: "radius %.0f m", stay.radius) + (stay.isOpen ? ", open)" : ")")
        case .trip(let trip):
            "\(UTCCalendar.iso8601(trip.start)) TRIP \(Self.distance(trip.distance)) until \(UTCCalendar.iso8601(trip.end)) "
                + "(\(Self.duration(trip.duration)), \(trip.mode.map { $0.word + ", " } ?? "")"
                + String(format: "avg %.1f km/h, max %.1f km/h", trip.averageSpeed * 3.6, trip.maxSpeed * 3.6)
                + ", \(trip.fixes) fixes" + (trip.isOpen ? ", open)" : ")")
        }
    }

    /// `2 h 14 min`, `5 min 3 s`, `45 s`, `3 d 2 h`.
    public static func duration(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded())
        let (days, hours, minutes, rest) = (total / 86_400, total / 3600 % 24, total / 60 % 60, total % 60)
        if days > 0 { return "\(days) d \(hours) h" }
        if hours > 0 { return "\(hours) h \(minutes) min" }
        if minutes > 0 { return "\(minutes) min \(rest) s" }
        return "\(rest) s"
    }

    /// `850 m`, `12.30 km`.
    public static func distance(_ metres: Double) -> String {
        metres < 1000 ? String(format: "%.0f m", metres) : String(format: "%.2f km", metres / 1000)
    }
}
