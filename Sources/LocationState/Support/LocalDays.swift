import Foundation

/// Days as a person counts them: from midnight to midnight in a time zone (the `timezone`
/// setting, by default the system's). A day with a daylight saving change is 23 or 25 hours
/// long; zones a half or quarter hour off UTC (Asia/Kolkata, Pacific/Chatham) work alike.
///
/// Stored times stay UTC; this only names days and shows times to people.
public struct LocalDays: Sendable, Equatable {
    /// The zone days are counted in.
    public let timeZone: TimeZone
    /// The zone's name as given, `Europe/Zurich` (Foundation may call `UTC` `GMT`).
    public let name: String
    private let calendar: Calendar

    public init(timeZone: TimeZone, name: String? = nil) {
        self.timeZone = timeZone
        self.name = name ?? timeZone.identifier
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    /// Days in UTC.
    public static let utc = LocalDays(timeZone: TimeZone(secondsFromGMT: 0) ?? .gmt, name: "UTC")

    /// The zone of an IANA name (`Europe/Zurich`, `UTC`); nil when there is no such zone.
    public init?(named name: String) {
        // TimeZone(identifier:) also takes abbreviations ("CET") and offsets ("GMT+1"), whose
        // days would ignore daylight saving: only names of the zone database are taken.
        guard name.contains("/") || name == "UTC" || name == "GMT",
            !name.hasPrefix("/"), !name.contains(".."),
            let zone = TimeZone(identifier: name)
        else { return nil }
        self.init(timeZone: zone, name: name)
    }

    /// The system's zone: `TZ` (an IANA name, with or without a leading `:`; empty is
    /// UTC, as for the C library), else the zone `/etc/localtime` links to, else UTC.
    ///
    /// - Throws: `usage` when `TZ` is set to something that is not a zone's name (a POSIX
    ///   rule such as `CET-1CEST` is not read: the `timezone` setting names the zone then).
    public static func system(
        environment: [String: String] = ProcessInfo.processInfo.environment, localtime: String = "/etc/localtime"
    ) throws(LocationError) -> LocalDays {
        if let tz = environment["TZ"] {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            if name.isEmpty { return .utc }
            if let days = LocalDays(named: name) ?? zoneFile(name) { return days }
            throw .usage(
                "TZ=\(tz.prefix(60)) is not a time zone name (as Europe/Zurich); set timezone to the zone to use")
        }
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: localtime),
            let days = zoneFile(target)
        {
            return days
        }
        return .utc
    }

    /// The zone of a path into the zone database (`/usr/share/zoneinfo/Europe/Zurich`).
    private static func zoneFile(_ path: String) -> LocalDays? {
        guard let range = path.range(of: "zoneinfo/") else { return nil }
        return LocalDays(named: String(path[range.upperBound...]))
    }

    /// The day `date` falls on, `YYYY-MM-DD`.
    public func day(of date: Date) -> String {
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// The day that holds `date`: from its first instant to the next day's.
    public func interval(containing date: Date) -> Range<Date> {
        let start = calendar.startOfDay(for: date)
        // Noon of the next day, then its start: a step of 24 hours would miss on a 23 or 25 hour day.
        let noon = calendar.date(byAdding: .hour, value: 36, to: start) ?? start.addingTimeInterval(129_600)
        return start..<calendar.startOfDay(for: noon)
    }

    /// The day `text` names (`YYYY-MM-DD`): from its first instant to the next day's; nil
    /// when it is not a date.
    public func interval(ofDay text: some StringProtocol) -> Range<Date>? {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let utc = UTCCalendar.parseISO8601(text + "T12:00:00Z"),
            UTCCalendar.iso8601(utc).hasPrefix(text)
        else { return nil }
        // Noon of that date here is within a day of noon UTC and never in a gap a change makes.
        let offset = Double(timeZone.secondsFromGMT(for: utc))
        return interval(containing: utc.addingTimeInterval(-offset))
    }

    /// `HH:MM` of `date` here.
    public func clock(_ date: Date) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        return String(format: "%02d:%02d", parts.hour ?? 0, parts.minute ?? 0)
    }

    /// `YYYY-MM-DD HH:MM` of `date` here.
    public func dateAndClock(_ date: Date) -> String { "\(day(of: date)) \(clock(date))" }

    /// `date` as ISO 8601 with milliseconds and this zone's offset at that time
    /// (`2026-03-29T03:30:00.000+02:00`), `Z` when the offset is zero.
    public func iso8601(_ date: Date) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let shifted = String(UTCCalendar.iso8601(date.addingTimeInterval(Double(offset))).dropLast())
        return shifted + (offset == 0 ? "Z" : self.offset(at: date))
    }

    /// The zone's offset from UTC at `date`, `+02:00`, `-03:30`, `+00:00`.
    public func offset(at date: Date) -> String {
        let offset = timeZone.secondsFromGMT(for: date)
        let minutes = abs(offset) / 60
        return String(format: "%@%02d:%02d", offset < 0 ? "-" : "+", minutes / 60, minutes % 60)
    }
}
