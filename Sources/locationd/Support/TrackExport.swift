import Foundation
import LocationState
import LocationStores

/// A GPX export of the recorded tracks (`DATA/tracks/YYYY-MM-DD.nmea`, a file per UTC
/// day): one local day, or the fixes between two dates or times. `GET /api/v1/tracks/…` and `locationd export`
/// both make theirs here, so the two give the same bytes.
struct TrackExport: Sendable {
    /// Why an export cannot be made, as one line; HTTP answers it with a 400 or 404,
    /// `locationd export` exits with 64 or 66.
    struct Failure: Error {
        enum Kind {
            /// A date that is not one, a backwards or too long range.
            case badRequest
            /// Nothing was recorded there.
            case missing
        }
        let kind: Kind
        let message: String
    }

    /// The day files to read, in order.
    let files: [URL]
    /// The fixes kept: those whose time lies inside.
    let interval: ClosedRange<Date>

    /// The GPX 1.1 document (``TrackRecorder/gpx(of:during:)``).
    func gpx() throws(LocationError) -> String {
        try TrackRecorder.gpx(of: files, during: interval)
    }

    /// The track recorded on `day` (`YYYY-MM-DD`), a day of `days`' zone: the fixes of
    /// that day in the files (named by UTC days) that overlap it.
    ///
    /// - Throws: `badRequest` when `day` is not a date, `missing` when no file holds it.
    static func day(_ day: String, in tracksDirectory: URL, days: LocalDays) throws(Failure) -> TrackExport {
        let interval = try Self.interval(ofDay: day, days: days)
        let files = files(overlapping: interval, in: tracksDirectory)
        guard !files.isEmpty else { throw Failure(kind: .missing, message: "no track was recorded on \(day)") }
        return TrackExport(files: files, interval: interval)
    }

    /// The fixes from `from` to `to`: dates (`2026-11-23`, a whole day) or ISO 8601
    /// times (`2026-11-23T12:00:00Z`). A range over days without a recording is an empty track.
    ///
    /// - Parameter maxDays: the longest range allowed, or `nil` for any.
    /// - Throws: `badRequest` for a bound that is missing or not a date, a backwards
    ///   range, or one longer than `maxDays`.
    static func range(
        from fromText: String?, to toText: String?, in tracksDirectory: URL, maxDays: Int?, days: LocalDays
    ) throws(Failure) -> TrackExport {
        let interval = try interval(from: fromText, to: toText, maxDays: maxDays, days: days)
        return TrackExport(files: files(overlapping: interval, in: tracksDirectory), interval: interval)
    }

    /// The recorded files, each a UTC day, that hold times of `interval`, oldest first.
    private static func files(overlapping interval: ClosedRange<Date>, in tracksDirectory: URL) -> [URL] {
        recordedDays(in: tracksDirectory).compactMap { day, _ -> URL? in
            guard let start = Self.day(day), start <= interval.upperBound,
                start.addingTimeInterval(86_400) > interval.lowerBound
            else { return nil }
            return tracksDirectory.appendingPathComponent(day + ".nmea")
        }
    }

    /// The times a range asks for, as `range(from:to:in:maxDays:days:)` reads them.
    static func interval(from fromText: String?, to toText: String?, maxDays: Int?, days: LocalDays) throws(Failure)
        -> ClosedRange<Date>
    {
        guard let fromText, let toText else {
            throw Failure(
                kind: .badRequest, message: "give the range as from=DATE&to=DATE (YYYY-MM-DD or ISO 8601 UTC)")
        }
        guard let from = time(fromText, endOfDay: false, days: days) else {
            throw Failure(
                kind: .badRequest, message: "from is not a date or an ISO 8601 time: '\(fromText.prefix(40))'")
        }
        guard let to = time(toText, endOfDay: true, days: days) else {
            throw Failure(
                kind: .badRequest, message: "to is not a date or an ISO 8601 time: '\(toText.prefix(40))'")
        }
        guard from <= to else { throw Failure(kind: .badRequest, message: "the range is backwards: from is after to") }
        if let maxDays, to.timeIntervalSince(from) > Double(maxDays) * 86_400 {
            throw Failure(kind: .badRequest, message: "a range may span at most \(maxDays) days")
        }
        return from...to
    }

    /// The times `day` (`YYYY-MM-DD`, a day of `days`' zone) asks for: all of it, to its
    /// last millisecond.
    ///
    /// - Throws: `badRequest` when it is not a date.
    static func interval(ofDay day: String, days: LocalDays) throws(Failure) -> ClosedRange<Date> {
        guard let interval = days.interval(ofDay: day) else {
            throw Failure(kind: .badRequest, message: "a day is written YYYY-MM-DD, not '\(day.prefix(40))'")
        }
        return interval.lowerBound...interval.upperBound.addingTimeInterval(-0.001)
    }

    /// The days with a recorded file (`YYYY-MM-DD.nmea`), oldest first, with the file's size.
    static func recordedDays(in tracksDirectory: URL) -> [(day: String, bytes: Int)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: tracksDirectory.path)) ?? []
        return names.sorted().compactMap { name in
            guard name.hasSuffix(".nmea"), day(String(name.dropLast(5))) != nil else { return nil }
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: tracksDirectory.appendingPathComponent(name).path)
            return (String(name.dropLast(5)), (attributes?[.size] as? Int) ?? 0)
        }
    }

    // MARK: - Dates

    /// The start of a `YYYY-MM-DD` day in UTC, as the recorded files are named, or `nil`
    /// when `text` is not one.
    static func day(_ text: String) -> Date? {
        guard text.utf8.count == 10, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (48...57).contains($0) })
        else { return nil }
        guard let date = UTCCalendar.parseISO8601(text + "T00:00:00Z"),
            UTCCalendar.iso8601(date).hasPrefix(text)
        else { return nil }
        return date
    }

    /// A day of `days`' zone (its start, or its last millisecond when `endOfDay`) or an
    /// ISO 8601 time.
    static func time(_ text: String, endOfDay: Bool, days: LocalDays) -> Date? {
        if let interval = days.interval(ofDay: text) {
            return endOfDay ? interval.upperBound.addingTimeInterval(-0.001) : interval.lowerBound
        }
        guard text.utf8.count <= 40 else { return nil }
        return UTCCalendar.parseISO8601(text)
    }
}
