import ArgumentParser
import Foundation
import LocationState
import LocationTimeline
import Logging

/// `locationd places [rename ID NAME]`: the places the stays were at (stays within 100 m of
/// each other, on any day, are one place), or one named by the user.
struct PlacesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "places",
        abstract: "List the places the device stayed at (or name one: places rename ID NAME).",
        discussion: """
            A place is the stays within 100 m of each other, on any day (trackintel's DBSCAN locations); \
            its id stays the same across restarts and `timeline --rebuild`. Home and work are labelled as \
            trackintel's OSNA method does, once there is enough history (10 places, a place 10 stays). Asks \
            the running daemon, else reads DIR/timeline.sqlite (rename writes it when no daemon runs). \
            Exit status 64 for a bad id or name, 66 when there is no timeline yet.
            """,
        subcommands: [List.self, Rename.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the places, most time first.")

        @Flag(help: "One PLACE JSON object per line.")
        var json = false

        @OptionGroup var reading: TimelineReading

        func run() throws {
            do throws(LocationError) {
                let days = try reading.timeZone.days()
                let places = try PlacesCommand.ask(
                    "?PLACES;", .list, days: days, socket: reading.socket.path, dataDirectory: reading.dataDirectory)
                let out = BufferedOutput()
                out.write(
                    json
                        ? places.map { ControlAnswers.line($0) + "\n" }.joined()
                        : PlacesCommand.table(places, days: days))
                out.flush()
            } catch {
                throw error.exit()
            }
        }
    }

    struct Rename: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Name a place (an empty name takes yours away); your name wins everywhere the place shows.")

        @Argument(help: ArgumentHelp("The place's id (`locationd places`).", valueName: "id"))
        var id: String

        @Argument(help: ArgumentHelp("The name.", valueName: "name"))
        var name: String

        @OptionGroup var reading: TimelineReading

        func run() throws {
            do throws(LocationError) {
                guard let number = Int(id), number > 0 else {
                    throw .usage("places rename: not a place id: '\(id.prefix(20))'")
                }
                guard let given = PlacesAnswer.name(name) else {
                    throw .usage(
                        "places rename: a name is at most \(PlacesAnswer.maxNameBytes) bytes, without control characters"
                    )
                }
                let request = "?PLACES=\(ControlAnswers.line(RenameArgument(rename: number, name: given ?? "")));"
                let places = try PlacesCommand.ask(
                    request, .rename(id: number, name: given), days: try reading.timeZone.days(),
                    socket: reading.socket.path,
                    dataDirectory: reading.dataDirectory)
                let place = places.first { $0.id == number }
                print("place \(number): \(place?.name?.escapedForTerminal ?? "no name")")
            } catch {
                throw error.exit()
            }
        }

        private struct RenameArgument: Encodable {
            let rename: Int
            let name: String
        }
    }

    /// The daemon's answer to `request`, else the same made from the data directory's
    /// timeline: read only, or (a rename) written under the data directory's lock.
    static func ask(
        _ request: String, _ parsed: PlacesAnswer.Request, days: LocalDays, socket: String?,
        dataDirectory: DataDirectoryOption
    ) throws(LocationError) -> [PlacesAnswer] {
        let source = DaemonOrFiles(socket: socket, dataDirectory: dataDirectory)
        var lines: [String] = []
        let fallback = try source.ask(request) { text throws(LocationError) in
            if text.hasPrefix(#"{"class":"PLACES""#) { return false }
            guard text.hasPrefix(#"{"class":"PLACE""#) else { throw DaemonOrFiles.unexpected(text) }
            lines.append(text)
            return true
        }
        if let fallback {
            // A daemon that refused a rename has said why: its files are not another's to write.
            if case .rename = parsed, fallback.note != nil { throw .usage(fallback.reason) }
            lines = try fallback.read { () throws(LocationError) in
                let store: TimelineStore
                var lock: DaemonLock?
                if case .rename = parsed {
                    let logger = Logger(label: "locationd.places")
                    lock = try DaemonLock(directory: source.directory.path, logger: logger)
                    store = try TimelineStore(directory: source.directory, logger: logger)
                } else {
                    store = try TimelineStore.openReadOnly(
                        at: source.directory.appendingPathComponent(TimelineStore.fileName))
                }
                defer { withExtendedLifetime(lock) {} }
                let entries = try store.tracker()?.pendingEntries ?? []
                let pending = entries.compactMap { entry -> Stay? in
                    if case .stay(let stay) = entry { stay } else { nil }
                }
                return try PlacesAnswer.lines(
                    parsed, store: store, pending: pending, naming: PlaceNamesFile.naming, days: days
                ).dropLast()
            }
        }
        var places: [PlacesAnswer] = []
        for line in lines {
            guard let place = try? JSONDecoder().decode(PlacesAnswer.self, from: Data(line.utf8)) else {
                throw DaemonOrFiles.unexpected(line)
            }
            places.append(place)
        }
        return places
    }

    /// `  3  home  Gockhausen, Zurich, CH   12 visits  3 d 4 h  2026-11-02 07:40 – 2026-11-27 18:02`.
    static func table(_ places: [PlacesAnswer], days: LocalDays) -> String {
        guard !places.isEmpty else { return "no places yet\n" }
        var rows = [["id", "label", "name", "visits", "time", "first visit", "last visit"]]
        for place in places {
            let name = place.name ?? String(format: "%.6f, %.6f", place.lat, place.lon)
            rows.append([
                "\(place.id)", place.label ?? "", name.escapedForTerminal, "\(place.visits)",
                TimelineEntry.duration(place.seconds),
                UTCCalendar.parseISO8601(place.first).map(days.dateAndClock) ?? place.first,
                UTCCalendar.parseISO8601(place.last).map(days.dateAndClock) ?? place.last,
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = "Places (\(days.name))\n"
        for row in rows {
            let line = zip(row, widths).map { $0 + String(repeating: " ", count: $1 - $0.count) }.joined(
                separator: "  ")
            text += String(line.reversed().drop(while: { $0 == " " }).reversed()) + "\n"
        }
        return text
    }
}
