import ArgumentParser
import Foundation
import LocationState
import LocationTimeline

/// `locationd timeline [DAY | --from … --to …]`: the stays and trips of a day or a range,
/// asked of the running daemon (``DaemonOrFiles``) or read from its timeline (read only,
/// beside a running daemon); `--rebuild` makes the timeline again from the recorded tracks.
struct TimelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Show the stays and trips of a day (or rebuild them from the recorded tracks).",
        discussion: """
            Without --data-dir, asks the running daemon (the system's, \(DaemonSockets.systemPath), then \
            your own), which may read a timeline you cannot; when none answers, or with --data-dir, reads \
            DIR/timeline.sqlite, which the daemon writes as stays and trips close; a running daemon goes on \
            writing. DAY and the dates of a range are days of --timezone, midnight to midnight there (a day \
            with a daylight saving change is 23 or 25 hours long); a bound may also be an ISO 8601 time; \
            without either, today. A stay that goes on over midnight is in both days. The table's times \
            are local, its title names the zone (each time carries its offset when the offset \
            changes within the table); JSON, GeoJSON and GPX times stay UTC. A stay or trip still \
            going on ends at its last fix, marked *; times carry their date when the table spans days. \
            --rebuild reads every DIR/tracks/YYYY-MM-DD.nmea in order (run --record; symbolic links are \
            skipped) and replaces the timeline with what they give, with the thresholds given here (the daemon's defaults \
            otherwise); it refuses while a daemon runs on the directory. \
            Exit status 64 for a bad date or threshold, 66 when there is no timeline yet.
            """
    )

    @Argument(help: ArgumentHelp("The day to show (YYYY-MM-DD, in --timezone; default today).", valueName: "day"))
    var day: String?

    @Option(help: ArgumentHelp("The start of a range (a date or an ISO 8601 time).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("The end of a range (a date, included whole, or an ISO 8601 time).", valueName: "date"))
    var to: String?

    @Flag(help: "One STAY or TRIP JSON object per line.")
    var json = false

    @Flag(help: "A GeoJSON FeatureCollection: stays as points, trips as lines between them.")
    var geojson = false

    @Flag(help: "A GPX 1.1 document: stays as waypoints, trips as routes between them.")
    var gpx = false

    @Flag(help: "A logbook: one CSV row per trip, with its local times, places, distance, mode and the odometer.")
    var csv = false

    @Flag(help: "Make the timeline again from the recorded tracks.")
    var rebuild = false

    @OptionGroup var thresholds: TimelineThresholds

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var socket: DaemonSocketOption

    @OptionGroup var timeZone: TimeZoneOption

    func validate() throws {
        if day != nil, from != nil || to != nil { throw ValidationError("Give a day or --from and --to, not both.") }
        if [json, geojson, gpx, csv].filter({ $0 }).count > 1 {
            throw ValidationError("Give one of --json, --geojson, --gpx, --csv.")
        }
    }

    private var source: TimelineSource { TimelineSource(socket: socket.path, dataDirectory: dataDirectory) }

    func run() async throws {
        do throws(LocationError) {
            if rebuild {
                let summary = try await TimelineRebuild.run(
                    directory: dataDirectory.url, configuration: try thresholds.configuration())
                StandardError.line("locationd: \(summary)")
                return
            }
            let days = try timeZone.days()
            let range = try TimelineRange.resolve(day: day, from: from, to: to, days: days)
            let lines = try source.lines(range)
            let entries = try TimelineSource.entries(lines)
            let text =
                csv
                ? try logbook(entries, days: days)
                : json
                    ? lines.map { $0 + "\n" }.joined()
                    : geojson
                        ? TimelineFormat.geoJSON(entries, lines: lines)
                        : gpx
                            ? TimelineFormat.gpx(entries)
                            : TimelineFormat.table(entries, title: range.title, spansDays: range.spansDays, days: days)
            let out = BufferedOutput()
            out.write(text)
            out.flush()
        } catch {
            throw error.exit()
        }
    }

    /// The logbook of `entries`' trips, with the stay a first trip that began before the
    /// range left (asked for on its own) and the odometer at that trip's start.
    private func logbook(_ entries: [TimelineEntry], days: LocalDays) throws(LocationError) -> String {
        var stays: [Date: Stay] = [:]
        for case .stay(let stay) in entries { stays[stay.start] = stay }
        let trips = entries.compactMap { if case .trip(let trip) = $0, !trip.isOpen { trip } else { nil } }
        guard let first = trips.first else { return TimelineLogbook.csv([], stays: [:], odometer: 0, days: days) }
        if let left = first.from, stays[left] == nil {
            let range = TimelineRange(start: left, end: left.addingTimeInterval(0.001), title: "")
            for case .stay(let stay) in try source.entries(range) { stays[stay.start] = stay }
        }
        let request = "?ODOMETER=\(ControlAnswers.line(["at": UTCCalendar.iso8601(first.start)]));"
        let odometer = try OdometerCommand.ask(
            request, .at(first.start), socket: socket.path, dataDirectory: dataDirectory)
        return TimelineLogbook.csv(entries, stays: stays, odometer: odometer.km * 1000, days: days)
    }
}
