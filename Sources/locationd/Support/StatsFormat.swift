import Foundation
import LocationState
import LocationTimeline

/// How `locationd stats` prints its figures: a table for people, or one JSON object.
enum StatsFormat {
    /// Which place a stay was at: its place (``Stay/place``), else its coordinates to a
    /// thousandth of a degree (about 100 m); shown by its name and those coordinates.
    static func place(_ stay: Stay) -> (key: String, name: String) {
        let coordinates = String(format: "%.3f, %.3f", stay.latitude, stay.longitude)
        let key = stay.place.map { "place \($0)" } ?? coordinates
        return (key, stay.name.map { "\($0) (\(key))" } ?? key)
    }

    static func table(
        _ statistics: TimelineStatistics, title: String, grouping: TimelineStatistics.Grouping, days: LocalDays
    ) -> String {
        var rows = [["", "distance", "moving", "stayed", "trips", "stays", "places"]]
        for period in statistics.periods { rows.append(row(period)) }
        rows.append(row(statistics.total))
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = "Statistics \(title) by \(grouping.rawValue) (\(days.name))\n"
        for row in rows {
            text += zip(row, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(separator: "  ")
            text = String(text.reversed().drop(while: { $0 == " " }).reversed()) + "\n"
        }
        text += statistics.places.isEmpty ? "no stays\n" : "Time at each place:\n"
        let durations = statistics.places.map { TimelineEntry.duration($0.seconds) }
        let width = durations.map(\.count).max() ?? 0
        for (place, duration) in zip(statistics.places, durations) {
            text +=
                "  \(duration)\(String(repeating: " ", count: width - duration.count))  \(place.name.escapedForTerminal)  "
                + "(\(place.visits) \(place.visits == 1 ? "stay" : "stays"))\n"
        }
        return text
    }

    private static func row(_ period: TimelineStatistics.Period) -> [String] {
        [
            period.name, TimelineEntry.distance(period.distance), TimelineEntry.duration(period.moving),
            TimelineEntry.duration(period.stayed), "\(period.trips)", "\(period.stays)", "\(period.places)",
        ]
    }

    static func json(
        _ statistics: TimelineStatistics, range: TimelineRange, grouping: TimelineStatistics.Grouping, days: LocalDays
    ) -> String {
        let periods = statistics.periods.map { period in
            Document.Period(
                period: period.name, from: days.iso8601(period.start), to: days.iso8601(period.end),
                distance: period.distance.rounded(), moving: period.moving.rounded(), stayed: period.stayed.rounded(),
                trips: period.trips, stays: period.stays, places: period.places)
        }
        let places = statistics.places.map {
            Document.Place(name: $0.name, seconds: $0.seconds.rounded(), stays: $0.visits)
        }
        let document = Document(
            from: days.iso8601(range.start), to: days.iso8601(range.end), timezone: days.name, by: grouping.rawValue,
            periods: periods, places: places)
        return JSONLineEncoder().encodeFinite(document) + "\n"
    }

    /// `{"class":"STATS",…}`: distances in metres, times in seconds.
    private struct Document: Encodable {
        struct Period: Encodable {
            let period: String
            let from: String
            let to: String
            let distance: Double
            let moving: Double
            let stayed: Double
            let trips: Int
            let stays: Int
            let places: Int
        }

        struct Place: Encodable {
            let name: String
            let seconds: Double
            let stays: Int
        }

        let `class` = "STATS"
        let from: String
        let to: String
        let timezone: String
        let by: String
        let periods: [Period]
        let places: [Place]
    }
}
