import Foundation
import LocationState

/// The stretch of time `locationd timeline` and `?TIMELINE` show: a UTC day, or a range
/// between two dates (the later included whole) or ISO 8601 UTC times.
struct TimelineRange: Sendable, Equatable {
    let start: Date
    let end: Date
    /// How the table's title names it: `of 2026-11-23`, `from 2026-11-23 to 2026-11-24`.
    let title: String

    /// The range from what a user wrote: `day`, or both `from` and `to`; today (UTC, at
    /// `now`) without any.
    ///
    /// - Parameter flag: how the bounds are named in an error (`--` for the command line).
    static func resolve(
        day: String?, from: String?, to: String?, flag: String = "--", now: Date = Date()
    ) throws(LocationError) -> TimelineRange {
        if from != nil || to != nil {
            guard day == nil else { throw .usage("give a day or \(flag)from and \(flag)to, not both") }
            guard let fromText = from, let toText = to else { throw .usage("give both \(flag)from and \(flag)to") }
            guard let start = TrackExport.time(fromText, endOfDay: false) else {
                throw .usage("\(flag)from: not a date (YYYY-MM-DD) or an ISO 8601 time: '\(fromText.prefix(40))'")
            }
            guard let end = TrackExport.time(toText, endOfDay: true) else {
                throw .usage("\(flag)to: not a date (YYYY-MM-DD) or an ISO 8601 time: '\(toText.prefix(40))'")
            }
            guard start <= end else { throw .usage("\(flag)from \(fromText) is after \(flag)to \(toText)") }
            return TimelineRange(start: start, end: end, title: "from \(fromText) to \(toText)")
        }
        let text = day ?? today(now)
        guard let start = TrackExport.day(text) else { throw .usage("not a day (YYYY-MM-DD): '\(text.prefix(40))'") }
        return TimelineRange(start: start, end: start.addingTimeInterval(86_400), title: "of \(text)")
    }

    /// The UTC day of `now`, `YYYY-MM-DD`.
    static func today(_ now: Date = Date()) -> String {
        String(UTCCalendar.iso8601(now).prefix(10))
    }
}
