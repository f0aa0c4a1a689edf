import Foundation
import LocationState

/// The stretch of time `locationd timeline` and `?TIMELINE` show: a day in the zone of
/// ``LocalDays``, or a range between two dates (the later included whole) or ISO 8601 times.
struct TimelineRange: Sendable, Equatable {
    let start: Date
    let end: Date
    /// How the table's title names it: `of 2026-11-23`, `from 2026-11-23 to 2026-11-24`.
    let title: String
    /// Whether it reaches over more than one day, so that its times carry their date.
    var spansDays = false

    /// The range from what a user wrote: `day`, or both `from` and `to`; today (at `now`)
    /// without any. Dates are days of `days`' zone.
    ///
    /// - Parameter flag: how the bounds are named in an error (`--` for the command line).
    static func resolve(
        day: String?, from: String?, to: String?, days: LocalDays, flag: String = "--", now: Date = Date()
    ) throws(LocationError) -> TimelineRange {
        if from != nil || to != nil {
            guard day == nil else { throw .usage("give a day or \(flag)from and \(flag)to, not both") }
            guard let fromText = from, let toText = to else { throw .usage("give both \(flag)from and \(flag)to") }
            guard let start = TrackExport.time(fromText, endOfDay: false, days: days) else {
                throw .usage("\(flag)from: not a date (YYYY-MM-DD) or an ISO 8601 time: '\(fromText.prefix(40))'")
            }
            guard let end = TrackExport.time(toText, endOfDay: true, days: days) else {
                throw .usage("\(flag)to: not a date (YYYY-MM-DD) or an ISO 8601 time: '\(toText.prefix(40))'")
            }
            guard start <= end else { throw .usage("\(flag)from \(fromText) is after \(flag)to \(toText)") }
            return TimelineRange(
                start: start, end: end, title: "from \(fromText) to \(toText)",
                spansDays: days.day(of: start) != days.day(of: end))
        }
        let text = day ?? days.day(of: now)
        guard let interval = days.interval(ofDay: text) else {
            throw .usage("not a day (YYYY-MM-DD): '\(text.prefix(40))'")
        }
        return TimelineRange(start: interval.lowerBound, end: interval.upperBound, title: "of \(text)")
    }
}
