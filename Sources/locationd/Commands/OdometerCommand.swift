import ArgumentParser
import Foundation
import LocationState
import LocationTimeline
import Logging

/// `locationd odometer [set KM]`: the odometer (the sum of the trips' distances) now, or set
/// to a vehicle's reading.
struct OdometerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "odometer",
        abstract: "Show the odometer (the sum of the trips' distances), or set it to a vehicle's reading.",
        discussion: """
            The odometer counts the trips of the timeline, so a parked device's jitter adds nothing; it is \
            made from the stored trips, so it survives a restart and `timeline --rebuild`. Asks the running \
            daemon (which sets it in its timeline), else reads or, with no daemon running, writes \
            DIR/timeline.sqlite. Exit status 64 for a bad reading, 66 when there is no timeline to read, \
            69 when neither a daemon nor the file can be reached.
            """,
        subcommands: [Show.self, Set.self],
        defaultSubcommand: Show.self)

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show", abstract: "Print the odometer's reading now.")

        @Flag(help: "Print one JSON object.")
        var json = false

        @OptionGroup var reading: TimelineReading

        func run() throws {
            do throws(LocationError) {
                let answer = try OdometerCommand.ask(
                    "?ODOMETER;", .now, socket: reading.socket.path, dataDirectory: reading.dataDirectory)
                print(
                    json ? ControlAnswers.line(answer) : OdometerCommand.text(answer, days: try reading.timeZone.days())
                )
            } catch {
                throw error.exit()
            }
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set the odometer to read KM now (a vehicle's odometer), replacing any earlier setting.",
            discussion: """
                During a trip the setting counts from the trip's start, less what it has covered. \
                Exit status 64 for a reading that is not a number of kilometres from 0 to \
                \(Int(Odometer.maxKilometres)).
                """)

        @Argument(help: ArgumentHelp("The reading, kilometres.", valueName: "km"))
        var kilometres: String

        @OptionGroup var reading: TimelineReading

        func run() throws {
            do throws(LocationError) {
                guard let value = OdometerAnswer.kilometres(kilometres) else {
                    throw .usage(
                        "odometer set: not a number of kilometres from 0 to \(Int(Odometer.maxKilometres)): '\(kilometres.prefix(40))'"
                    )
                }
                let request = "?ODOMETER=\(ControlAnswers.line(["set": value]));"
                let answer = try OdometerCommand.ask(
                    request, .set(kilometres: value), socket: reading.socket.path, dataDirectory: reading.dataDirectory)
                print(OdometerCommand.text(answer, days: try reading.timeZone.days()))
            } catch {
                throw error.exit()
            }
        }
    }

    /// The daemon's answer to `request`, else the same made from the data directory's timeline:
    /// read only, or (a setting) written under the data directory's lock, which a running daemon holds.
    static func ask(
        _ request: String, _ parsed: OdometerAnswer.Request, socket: String?, dataDirectory: DataDirectoryOption
    ) throws(LocationError) -> OdometerAnswer {
        let source = DaemonOrFiles(socket: socket, dataDirectory: dataDirectory)
        var answer: OdometerAnswer?
        let fallback = try source.ask(request) { text throws(LocationError) in
            guard let decoded = try? JSONDecoder().decode(OdometerAnswer.self, from: Data(text.utf8)),
                decoded.class == "ODOMETER"
            else { throw DaemonOrFiles.unexpected(text) }
            answer = decoded
            return false
        }
        if let answer, fallback == nil { return answer }
        // A daemon that refused a setting has said why: its files are not another's to write.
        if case .set = parsed, let fallback, fallback.note != nil { throw .usage(fallback.reason) }
        let file = source.directory.appendingPathComponent(TimelineStore.fileName)
        return try (fallback ?? DaemonOrFiles.Fallback(reason: "", note: nil)).read { () throws(LocationError) in
            if case .set = parsed {
                let logger = Logger(label: "locationd.odometer")
                let lock = try DaemonLock(directory: source.directory.path, logger: logger)
                defer { withExtendedLifetime(lock) {} }
                let store = try TimelineStore(directory: source.directory, logger: logger)
                return try OdometerAnswer.answer(parsed, store: store, tracker: try store.tracker())
            }
            let store = try TimelineStore.openReadOnly(at: file)
            return try OdometerAnswer.answer(parsed, store: store, tracker: try store.tracker())
        }
    }

    /// `odometer 12345.678 km (set to 12000.000 km at 2026-11-20 08:00 +01:00)`.
    static func text(_ answer: OdometerAnswer, days: LocalDays) -> String {
        var text = String(format: "odometer %.3f km", answer.km)
        if let setAt = answer.setAt.flatMap({ UTCCalendar.parseISO8601($0) }), let setKm = answer.setKm {
            text +=
                String(format: " (set to %.3f km at ", setKm) + "\(days.dateAndClock(setAt)) \(days.offset(at: setAt)))"
        } else {
            text += " (never set: the trips' distances since the timeline began)"
        }
        return text
    }
}
