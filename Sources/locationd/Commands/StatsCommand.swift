import ArgumentParser
import Foundation
import LocationState
import LocationTimeline

/// `locationd stats [DAY | --month YYYY-MM | --from … --to …] [--by day|week|month]`: what
/// the timeline adds up to per local day, week or month.
struct StatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show distance, time moving and time at each place, per day, week or month.",
        discussion: """
            Reads the timeline as `locationd timeline` does (the running daemon, else DIR/timeline.sqlite). \
            Without a day, a month or a range: this month. Days, ISO weeks (from Monday) and months are \
            those of --timezone; a stay or trip counts in each period for its time there (a trip's distance \
            in proportion). Exit status 64 for a bad date, month or grouping, 66 when there is no timeline yet.
            """)

    @Argument(help: ArgumentHelp("One day (YYYY-MM-DD).", valueName: "day"))
    var day: String?

    @Option(help: ArgumentHelp("A month (YYYY-MM; default this month).", valueName: "month"))
    var month: String?

    @Option(help: ArgumentHelp("The start of a range (a date or an ISO 8601 time).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("The end of a range (a date, included whole, or an ISO 8601 time).", valueName: "date"))
    var to: String?

    @Option(help: ArgumentHelp("Per day, week or month (default: day).", valueName: "period"))
    var by = "day"

    @Flag(help: "Print one JSON object.")
    var json = false

    @OptionGroup var reading: TimelineReading

    func run() throws {
        do throws(LocationError) {
            guard let grouping = TimelineStatistics.Grouping(rawValue: by) else {
                throw .usage("--by: give day, week or month, not '\(by.prefix(20))'")
            }
            let days = try reading.timeZone.days()
            let range = try self.range(days: days)
            let entries = try reading.source.entries(range)
            let statistics = TimelineStatistics(
                entries, range: range.start..<range.end, grouping: grouping, days: days, place: StatsFormat.place)
            let out = BufferedOutput()
            out.write(
                json
                    ? StatsFormat.json(statistics, range: range, grouping: grouping, days: days)
                    : StatsFormat.table(statistics, title: range.title, grouping: grouping, days: days))
            out.flush()
        } catch {
            throw error.exit()
        }
    }

    /// The range asked for: a day, a month, a range, or this month.
    private func range(days: LocalDays, now: Date = Date()) throws(LocationError) -> TimelineRange {
        let given = [day != nil, month != nil, from != nil || to != nil].filter { $0 }.count
        guard given <= 1 else { throw .usage("give a day, --month, or --from and --to, not more than one") }
        if day != nil || from != nil || to != nil {
            return try TimelineRange.resolve(day: day, from: from, to: to, days: days)
        }
        let name = month ?? String(days.day(of: now).prefix(7))
        guard name.utf8.count == 7, let first = days.interval(ofDay: name + "-01") else {
            throw .usage("--month: not a month (YYYY-MM): '\(name.prefix(20))'")
        }
        var last = first
        while let next = Optional(days.interval(containing: last.upperBound)),
            days.day(of: next.lowerBound).hasPrefix(name)
        {
            last = next
        }
        return TimelineRange(start: first.lowerBound, end: last.upperBound, title: "of \(name)", spansDays: true)
    }
}
