import Foundation
import LocationState
import LocationStores

/// A GPX export of the recorded tracks (`DATA/tracks/YYYY-MM-DD.nmea`): one day, or
/// the fixes between two dates or times. `GET /api/v1/tracks/…` and `locationd export`
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

    /// The track recorded on `day` (`YYYY-MM-DD`, UTC).
    ///
    /// - Throws: `badRequest` when `day` is not a date, `missing` when no file holds it.
    static func day(_ day: String, in tracksDirectory: URL) throws(Failure) -> TrackExport {
        let start = try Self.start(ofDay: day)
        let url = tracksDirectory.appendingPathComponent(day + ".nmea")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw Failure(kind: .missing, message: "no track was recorded on \(day)")
        }
        return TrackExport(files: [url], interval: interval(day: start))
    }

    /// The fixes from `from` to `to`: dates (`2026-11-23`, a whole day) or ISO 8601 UTC
    /// times (`2026-11-23T12:00:00Z`). A range over days without a recording is an empty track.
    ///
    /// - Parameter maxDays: the longest range allowed, or `nil` for any.
    /// - Throws: `badRequest` for a bound that is missing or not a date, a backwards
    ///   range, or one longer than `maxDays`.
    static func range(
        from fromText: String?, to toText: String?, in tracksDirectory: URL, maxDays: Int?
    ) throws(Failure) -> TrackExport {
        let interval = try interval(from: fromText, to: toText, maxDays: maxDays)
        let (from, to) = (interval.lowerBound, interval.upperBound)
        let files = recordedDays(in: tracksDirectory).compactMap { day, _ -> URL? in
            guard let start = Self.day(day), start <= to, start.addingTimeInterval(86_400) > from else { return nil }
            return tracksDirectory.appendingPathComponent(day + ".nmea")
        }
        return TrackExport(files: files, interval: interval)
    }

    /// The times a range asks for, as `range(from:to:in:maxDays:)` reads them.
    static func interval(from fromText: String?, to toText: String?, maxDays: Int?) throws(Failure)
        -> ClosedRange<Date>
    {
        guard let fromText, let toText else {
            throw Failure(
                kind: .badRequest, message: "give the range as from=DATE&to=DATE (YYYY-MM-DD or ISO 8601 UTC)")
        }
        guard let from = time(fromText, endOfDay: false) else {
            throw Failure(
                kind: .badRequest, message: "from is not a date or an ISO 8601 UTC time: '\(fromText.prefix(40))'")
        }
        guard let to = time(toText, endOfDay: true) else {
            throw Failure(
                kind: .badRequest, message: "to is not a date or an ISO 8601 UTC time: '\(toText.prefix(40))'")
        }
        guard from <= to else { throw Failure(kind: .badRequest, message: "the range is backwards: from is after to") }
        if let maxDays, to.timeIntervalSince(from) > Double(maxDays) * 86_400 {
            throw Failure(kind: .badRequest, message: "a range may span at most \(maxDays) days")
        }
        return from...to
    }

    /// The start of `day` (`YYYY-MM-DD`, UTC).
    ///
    /// - Throws: `badRequest` when it is not a date.
    static func start(ofDay day: String) throws(Failure) -> Date {
        guard let start = Self.day(day) else {
            throw Failure(kind: .badRequest, message: "a day is written YYYY-MM-DD, not '\(day.prefix(40))'")
        }
        return start
    }

    /// The times a day asks for: all of it, to its last millisecond.
    static func interval(day start: Date) -> ClosedRange<Date> {
        start...start.addingTimeInterval(86_400 - 0.001)
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

    /// The start of a `YYYY-MM-DD` day in UTC, or `nil` when `text` is not one.
    static func day(_ text: String) -> Date? {
        guard text.utf8.count == 10, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (48...57).contains($0) })
        else { return nil }
        guard let date = UTCCalendar.parseISO8601(text + "T00:00:00Z"),
            UTCCalendar.iso8601(date).hasPrefix(text)
        else { return nil }
        return date
    }

    /// A day (its start, or its last millisecond when `endOfDay`) or an ISO 8601 time.
    static func time(_ text: String, endOfDay: Bool) -> Date? {
        if let start = day(text) { return endOfDay ? start.addingTimeInterval(86_400 - 0.001) : start }
        guard text.utf8.count <= 40 else { return nil }
        return UTCCalendar.parseISO8601(text)
    }
}
