import Foundation
import LocationState

/// What a stretch of the timeline adds up to, per local day, ISO week or month: distance,
/// time moving, time stayed, stays and places visited, and the time at each place.
///
/// An entry counts in a period for the part of it that lies there: a stay from 23:30 to
/// 07:00 gives each day its hours, and a trip over midnight its distance in proportion
/// to its time on each side. Only what lies within the range counts.
public struct TimelineStatistics: Sendable, Equatable {
    /// How the range is cut.
    public enum Grouping: String, Sendable, CaseIterable {
        case day, week, month
    }

    /// One period's figures.
    public struct Period: Sendable, Equatable {
        /// `2026-11-23`, `2026-W48` or `2026-11`.
        public var name: String
        public var start: Date
        public var end: Date
        public var distance = 0.0
        public var moving = 0.0
        public var stayed = 0.0
        public var trips = 0
        public var stays = 0
        /// How many places the stays were at.
        public var places = 0
    }

    /// The time spent at one place over the whole range.
    public struct Place: Sendable, Equatable {
        public var name: String
        public var seconds: Double
        /// How many stays were there.
        public var visits: Int
    }

    public var periods: [Period]
    /// The places, most time first.
    public var places: [Place]

    /// The figures of `entries` over `range` cut by `grouping` in `days`' zone. `place`
    /// says which place a stay was at: stays with the same key are one place, shown by the
    /// name it gives.
    public init(
        _ entries: [TimelineEntry], range: Range<Date>, grouping: Grouping, days: LocalDays,
        place: (Stay) -> (key: String, name: String)
    ) {
        periods = Self.periods(range, grouping: grouping, days: days)
        var placeSeconds: [String: Place] = [:]
        for index in periods.indices {
            var visited = Set<String>()
            let bounds = periods[index].start..<periods[index].end
            for entry in entries {
                let overlap = Self.overlap(entry.start...max(entry.start, entry.end), bounds)
                guard overlap > 0 || (entry.start == entry.end && bounds.contains(entry.start)) else { continue }
                switch entry {
                case .stay(let stay):
                    periods[index].stays += 1
                    periods[index].stayed += overlap
                    let (key, name) = place(stay)
                    visited.insert(key)
                    placeSeconds[key, default: Place(name: name, seconds: 0, visits: 0)].seconds += overlap
                case .trip(let trip):
                    periods[index].trips += 1
                    periods[index].moving += overlap
                    periods[index].distance +=
                        trip.duration > 0 ? trip.distance * overlap / trip.duration : trip.distance
                }
            }
            periods[index].places = visited.count
        }
        let within = range.lowerBound..<range.upperBound
        for case .stay(let stay) in entries where Self.overlap(stay.start...max(stay.start, stay.end), within) > 0 {
            placeSeconds[place(stay).key]?.visits += 1
        }
        places = placeSeconds.values.sorted { ($0.seconds, $1.name) > ($1.seconds, $0.name) }
    }

    /// The whole range's figures: the periods' sums, the stays and places counted once.
    public var total: Period {
        var total = Period(
            name: "total", start: periods.first?.start ?? .distantPast, end: periods.last?.end ?? .distantPast)
        for period in periods {
            total.distance += period.distance
            total.moving += period.moving
            total.stayed += period.stayed
        }
        total.trips = periods.reduce(0) { $0 + $1.trips }
        total.stays = places.reduce(0) { $0 + $1.visits }
        total.places = places.count
        return total
    }

    /// The periods that cover `range`: its local days, or the days grouped by ISO week (from
    /// Monday) or by month, each cut to the range.
    static func periods(_ range: Range<Date>, grouping: Grouping, days: LocalDays) -> [Period] {
        var periods: [Period] = []
        var day = days.interval(containing: range.lowerBound)
        while day.lowerBound < range.upperBound {
            let date = days.day(of: day.lowerBound)
            let name =
                switch grouping {
                case .day: date
                case .week: Self.isoWeek(date)
                case .month: String(date.prefix(7))
                }
            let start = max(day.lowerBound, range.lowerBound)
            let end = min(day.upperBound, range.upperBound)
            if periods.last?.name == name {
                periods[periods.count - 1].end = end
            } else {
                periods.append(Period(name: name, start: start, end: end))
            }
            day = days.interval(containing: day.upperBound)
        }
        return periods
    }

    /// The ISO 8601 week of a date (`YYYY-MM-DD`): `2026-W48`; weeks start on Monday and the
    /// first week of a year holds its first Thursday.
    static func isoWeek(_ date: String) -> String {
        guard let noon = UTCCalendar.parseISO8601(date + "T12:00:00Z") else { return date }
        let dayNumber = Int((noon.timeIntervalSince1970 / 86_400).rounded(.down))
        // 1970-01-01 was a Thursday: weekday 1 (Monday) to 7 (Sunday).
        let weekday = ((dayNumber + 3) % 7 + 7) % 7 + 1
        let thursday = Date(timeIntervalSince1970: Double(dayNumber + 4 - weekday) * 86_400 + 43_200)
        let thursdayText = UTCCalendar.iso8601(thursday)
        let year = Int(thursdayText.prefix(4)) ?? 0
        guard let january = UTCCalendar.parseISO8601("\(thursdayText.prefix(4))-01-01T12:00:00Z") else { return date }
        let week = Int((thursday.timeIntervalSince(january) / 86_400).rounded(.down)) / 7 + 1
        return String(format: "%04d-W%02d", year, week)
    }

    /// Seconds of `entry` within `bounds`.
    private static func overlap(_ entry: ClosedRange<Date>, _ bounds: Range<Date>) -> Double {
        max(0, min(entry.upperBound, bounds.upperBound).timeIntervalSince(max(entry.lowerBound, bounds.lowerBound)))
    }
}
