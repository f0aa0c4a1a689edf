import ArgumentParser
import Foundation
import LocationState
import LocationStores

/// `locationd export DAY` or `locationd export --from DATE --to DATE`: the recorded
/// tracks as GPX 1.1, the very bytes `GET /api/v1/tracks/DAY.gpx` and
/// `GET /api/v1/tracks.gpx?from=…&to=…` answer (``TrackExport``), from the tracks the
/// running daemon hands over its socket (``DaemonOrFiles``) or from the files.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export recorded tracks (run --record) as GPX 1.1.",
        discussion: """
            Without --data-dir, asks the running daemon (the system's, \(DaemonSockets.systemPath), then \
            your own) for its recorded tracks, which you may not be able to read; when none answers, or \
            with --data-dir, reads DIR/tracks/YYYY-MM-DD.nmea; a running daemon may go on recording. \
            DAY and the dates of a range are days of --timezone (midnight to midnight there); a bound \
            of a range may also be an ISO 8601 time (2026-11-23T12:00:00Z, or with an offset). The files \
            are named by UTC days; a day's export takes its fixes from each file that overlaps it. \
            A range over days without a recording is an empty track. \
            Exit status 64 for a bad date or a backwards range, 66 when the data directory or the day's \
            recording does not exist, 73 when --output cannot be written (a directory, a socket, \
            a block device), 74 when writing into a FIFO or device fails.
            """
    )

    @Argument(help: ArgumentHelp("The day to export (YYYY-MM-DD, in --timezone).", valueName: "day"))
    var day: String?

    @Option(help: ArgumentHelp("The start of a range (a date or an ISO 8601 time).", valueName: "date"))
    var from: String?

    @Option(help: ArgumentHelp("The end of a range (a date, included whole, or an ISO 8601 time).", valueName: "date"))
    var to: String?

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Write to this file (atomically: complete or not at all; mode 0600) instead of stdout; a FIFO, a character device or - is written into, never replaced.",
            valueName: "file"))
    var output: String?

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var socket: DaemonSocketOption

    @OptionGroup var timeZone: TimeZoneOption

    func validate() throws {
        if day != nil, from != nil || to != nil {
            throw ValidationError("Give a day or --from and --to, not both.")
        }
        if day == nil, from == nil, to == nil {
            throw ValidationError("Give a day (YYYY-MM-DD) or a range (--from DATE --to DATE).")
        }
    }

    func run() throws {
        do {
            if day == nil, (from == nil) != (to == nil) {
                throw TrackExport.Failure(kind: .badRequest, message: "a range needs both --from and --to")
            }
            let gpx = try document()
            if let output {
                try OutputTarget.deliver(Data(gpx.utf8), to: output)
            } else {
                let out = BufferedOutput()
                out.write(gpx)
                out.flush()
            }
        } catch let error as LocationError {
            throw error.exit()
        } catch let error as TrackExport.Failure {
            StandardError.line("locationd: \(error.message)")
            throw ExitCode(error.kind == .missing ? ExitStatus.noInput : ExitStatus.usage)
        }
    }

    /// The GPX document: from the tracks the running daemon hands over (``DaemonOrFiles``),
    /// else from the files; the same code makes it from the same bytes either way.
    private func document() throws -> String {
        let days = try timeZone.days()
        let interval =
            if let day {
                try TrackExport.interval(ofDay: day, days: days)
            } else {
                try TrackExport.interval(from: from, to: to, maxDays: nil, days: days)
            }
        let source = DaemonOrFiles(socket: socket.path, dataDirectory: dataDirectory)
        // The times, not the day: the daemon may count days in another zone.
        let argument = [
            "from": UTCCalendar.iso8601(interval.lowerBound), "to": UTCCalendar.iso8601(interval.upperBound),
        ]
        var recordings: [Data] = []
        var expected: [Int] = []
        let fallback = try source.ask("?TRACK=\(JSONLineEncoder().encodeFinite(argument));") {
            text throws(LocationError) in
            guard let line = try? JSONDecoder().decode(TrackLine.self, from: Data(text.utf8)) else {
                throw DaemonOrFiles.unexpected(text)
            }
            switch (line.class, line.bytes, line.data.flatMap { Data(base64Encoded: $0) }) {
            case ("TRACKFILE", let bytes?, nil):
                recordings.append(Data())
                expected.append(bytes)
            case ("NMEA", nil, let data?) where !recordings.isEmpty:
                recordings[recordings.count - 1].append(data)
            case ("TRACK", nil, nil):
                guard recordings.map(\.count) == expected else {
                    throw .unavailable("the daemon's answer holds other track bytes than it says")
                }
                return false
            default:
                throw DaemonOrFiles.unexpected(text)
            }
            return true
        }
        guard let fallback else {
            if let day, recordings.isEmpty {
                throw TrackExport.Failure(kind: .missing, message: "no track was recorded on \(day)")
            }
            return TrackRecorder.gpx(ofRecordings: recordings, during: interval)
        }
        return try fallback.readTracks { try export(days: days) }
    }

    /// The lines of a `?TRACK` answer.
    private struct TrackLine: Decodable {
        let `class`: String
        let bytes: Int?
        let data: String?
    }

    /// The days or range asked for, in the data directory, which must exist, as GPX.
    private func export(days: LocalDays) throws -> String {
        let directory = dataDirectory.url
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue
        else {
            throw TrackExport.Failure(
                kind: .missing, message: "no data directory at \(directory.path); name the right one with --data-dir")
        }
        let tracks = directory.appendingPathComponent("tracks")
        if let day { return try TrackExport.day(day, in: tracks, days: days).gpx() }
        return try TrackExport.range(from: from, to: to, in: tracks, maxDays: nil, days: days).gpx()
    }
}
