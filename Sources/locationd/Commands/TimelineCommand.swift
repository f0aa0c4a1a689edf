import ArgumentParser
import Foundation
import LocationState

/// `locationd timeline [DAY | --from … --to …]`: the stays and trips of a day or a range,
/// read from the daemon's timeline (read only, beside a running daemon); `--rebuild`
/// makes the timeline again from the recorded tracks.
struct TimelineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline",
        abstract: "Show the stays and trips of a day (or rebuild them from the recorded tracks).",
        discussion: """
            Reads DIR/timeline.sqlite, which the daemon writes as stays and trips close; a running \
            daemon goes on writing. DAY and the bounds of a range are UTC: a date (2026-11-23, a whole \
            day) or an ISO 8601 time; without either, today. A stay or trip still going on is marked open. \
            --rebuild reads every DIR/tracks/YYYY-MM-DD.nmea in order (run --record) and replaces the \
            timeline with what they give, with the thresholds given here (the daemon's defaults \
            otherwise); it refuses while a daemon runs on the directory. \
            Exit status 64 for a bad date or threshold, 66 when there is no timeline yet.
            """
    )

    @Argument(help: ArgumentHelp("The day to show (YYYY-MM-DD, UTC; default today).", valueName: "day"))
    var day: String?

    @Option(help: ArgumentHelp("The start of a range (a date or an ISO 8601 UTC time).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("The end of a range (a date, included whole, or an ISO 8601 time).", valueName: "date"))
    var to: String?

    @Flag(help: "One STAY or TRIP JSON object per line.")
    var json = false

    @Flag(help: "A GeoJSON FeatureCollection: stays as points, trips as lines between them.")
    var geojson = false

    @Flag(help: "A GPX 1.1 document: stays as waypoints, trips as routes between them.")
    var gpx = false

    @Flag(help: "Make the timeline again from the recorded tracks.")
    var rebuild = false

    @OptionGroup var thresholds: TimelineThresholds

    @OptionGroup var dataDirectory: DataDirectoryOption

    func validate() throws {
        if day != nil, from != nil || to != nil { throw ValidationError("Give a day or --from and --to, not both.") }
        if [json, geojson, gpx].filter({ $0 }).count > 1 {
            throw ValidationError("Give one of --json, --geojson, --gpx.")
        }
    }

    func run() async throws {
        do throws(LocationError) {
            if rebuild {
                let summary = try await TimelineRebuild.run(
                    directory: dataDirectory.url, configuration: try thresholds.configuration())
                StandardError.line("locationd: \(summary)")
                return
            }
            let (start, end, title) = try range()
            let store = try TimelineStore.openReadOnly(
                at: dataDirectory.url.appendingPathComponent(TimelineStore.fileName))
            let entries = try store.entries(from: start, to: end)
            let text =
                json
                ? TimelineFormat.jsonLines(entries)
                : geojson
                    ? TimelineFormat.geoJSON(entries)
                    : gpx ? TimelineFormat.gpx(entries) : TimelineFormat.table(entries, title: title)
            let out = BufferedOutput()
            out.write(text)
            out.flush()
        } catch {
            throw error.exit()
        }
    }

    /// The times asked for, and the table's title.
    private func range() throws(LocationError) -> (Date, Date, String) {
        if from != nil || to != nil {
            guard let fromText = from, let toText = to else { throw .usage("give both --from and --to") }
            guard let start = TrackExport.time(fromText, endOfDay: false) else {
                throw .usage("--from: not a date (YYYY-MM-DD) or an ISO 8601 time: '\(fromText)'")
            }
            guard let end = TrackExport.time(toText, endOfDay: true) else {
                throw .usage("--to: not a date (YYYY-MM-DD) or an ISO 8601 time: '\(toText)'")
            }
            guard start <= end else { throw .usage("--from \(fromText) is after --to \(toText)") }
            return (start, end, "from \(fromText) to \(toText)")
        }
        let text = day ?? String(UTCCalendar.iso8601(Date()).prefix(10))
        guard let start = TrackExport.day(text) else { throw .usage("not a day (YYYY-MM-DD): '\(text)'") }
        return (start, start.addingTimeInterval(86_400), "of \(text)")
    }
}
