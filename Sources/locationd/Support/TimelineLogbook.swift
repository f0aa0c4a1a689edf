import Foundation
import LocationState
import LocationTimeline

/// `locationd timeline --csv`: a logbook, one row per trip (RFC 4180: a header, CRLF,
/// fields quoted where they hold a comma, a quote or a line break), for a spreadsheet or a
/// tax office's drive log.
///
/// Columns: `start` and `end` (local ISO 8601 with the offset), `from` and `to` (the stays'
/// names), `distance_km`, `duration` (H:MM:SS), `mode`, `odometer_start_km` and
/// `odometer_end_km`. A trip still under way is no row until it ends.
enum TimelineLogbook {
    static let header = [
        "start", "end", "from", "to", "distance_km", "duration", "mode", "odometer_start_km", "odometer_end_km",
    ]

    /// The rows of the closed trips among `entries`; `stays` holds the stays they left and
    /// reached (by start), `odometer` the reading at the first one's start, metres.
    static func csv(_ entries: [TimelineEntry], stays: [Date: Stay], odometer: Double, days: LocalDays) -> String {
        var rows = [header]
        var reading = odometer
        for case .trip(let trip) in entries where !trip.isOpen {
            let start = reading
            reading += trip.distance
            rows.append([
                days.iso8601(trip.start), days.iso8601(trip.end),
                trip.from.flatMap { stays[$0] }.map(name) ?? "", trip.to.flatMap { stays[$0] }.map(name) ?? "",
                kilometres(trip.distance), clock(trip.duration), trip.mode?.word ?? "",
                kilometres(start), kilometres(reading),
            ])
        }
        return rows.map { $0.map(field).joined(separator: ",") + "\r\n" }.joined()
    }

    /// What a stay is called in the logbook: its name, else its coordinates.
    static func name(_ stay: Stay) -> String {
        stay.name ?? String(format: "%.6f, %.6f", stay.latitude, stay.longitude)
    }

    private static func kilometres(_ metres: Double) -> String { String(format: "%.3f", metres / 1000) }

    /// `H:MM:SS`, which spreadsheets read as a duration.
    private static func clock(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded())
        return String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
    }

    /// `text`, quoted when it holds a comma, a quote or a line break (quotes doubled).
    private static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
