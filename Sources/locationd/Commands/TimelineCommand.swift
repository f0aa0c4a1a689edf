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

    @Flag(help: "Make the timeline again from the recorded tracks.")
    var rebuild = false

    @OptionGroup var thresholds: TimelineThresholds

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var socket: DaemonSocketOption

    @OptionGroup var timeZone: TimeZoneOption

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
            let days = try timeZone.days()
            let range = try TimelineRange.resolve(day: day, from: from, to: to, days: days)
            let lines = try self.lines(range)
            var entries: [TimelineEntry] = []
            for line in lines {
                guard let entry = TimelineEntry(jsonLine: line) else { throw DaemonOrFiles.unexpected(line) }
                entries.append(entry)
            }
            let text =
                json
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

    /// The STAY and TRIP lines of `range`: from the running daemon (``DaemonOrFiles``), else
    /// written from the timeline file as the daemon writes them, so that either prints the same.
    private func lines(_ range: TimelineRange) throws(LocationError) -> [String] {
        let source = DaemonOrFiles(socket: socket.path, dataDirectory: dataDirectory)
        // The times, not the days: the daemon may count days in another zone.
        let argument = ["from": UTCCalendar.iso8601(range.start), "to": UTCCalendar.iso8601(range.end)]
        var lines: [String] = []
        let fallback = try source.ask("?TIMELINE=\(JSONLineEncoder().encodeFinite(argument));") {
            text throws(LocationError) in
            if text.hasPrefix(#"{"class":"TIMELINE""#) { return false }
            guard text.hasPrefix(#"{"class":"STAY""#) || text.hasPrefix(#"{"class":"TRIP""#) else {
                throw DaemonOrFiles.unexpected(text)
            }
            lines.append(text)
            return true
        }
        guard let fallback else { return lines }
        return try fallback.read { () throws(LocationError) in
            let store = try TimelineStore.openReadOnly(
                at: source.directory.appendingPathComponent(TimelineStore.fileName))
            return try store.entries(from: range.start, to: range.end).map(\.jsonString)
        }
    }
}
