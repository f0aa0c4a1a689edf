import Foundation

/// How the servers read a time written as text.
package enum ServerTimes {
    /// Java's `DateTimeFormatter.ISO_ZONED_DATE_TIME` (Traccar's `DateUtil.parseDate`,
    /// traccar/traccar @ 9e5c458a src/main/java/org/traccar/helper/DateUtil.java:63-65):
    /// `yyyy-MM-ddTHH:mm[:ss[.fraction]]` and an offset, which is required: `Z` or
    /// `±HH:MM[:ss]`; a `[zone]` after it is allowed (and not used here).
    package static func javaZoned(_ text: String) -> Date? {
        guard
            let match = text.wholeMatch(
                of:
                    /(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}(?::\d{2})?)(?:\[[^\]]+\])?/
            )
        else { return nil }
        return date(
            match.1, match.2, match.3, match.4, match.5, match.6, match.7.map { Double("0" + $0) ?? 0 } ?? 0,
            offset: offsetSeconds(match.8))
    }

    /// Traccar's `yyyy-MM-dd HH:mm:ss` (OsmAndProtocolDecoder.java:53-54) in the server's
    /// time zone, which is UTC for a stand-in.
    package static func traccarLocal(_ text: String) -> Date? {
        guard let match = text.wholeMatch(of: /(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})/) else { return nil }
        return date(match.1, match.2, match.3, match.4, match.5, match.6, 0, offset: 0)
    }

    /// Ruby's `DateTime.parse` for the ISO 8601 forms a client writes (Dawarich,
    /// app/services/overland/params.rb:23): a date, `T` or a space, the time with optional
    /// seconds and fraction, and an optional offset `Z`, `±HH:MM` or `±HHMM` (none: UTC).
    /// Ruby reads much more free-form text too; the stand-in refuses it, as no client should send it.
    package static func rubyDateTime(_ text: String) -> Date? {
        guard
            let match = text.wholeMatch(
                of: /(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?/)
        else { return nil }
        return date(
            match.1, match.2, match.3, match.4, match.5, match.6, match.7.map { Double("0" + $0) ?? 0 } ?? 0,
            offset: match.8.map(offsetSeconds) ?? 0)
    }

    /// Seconds east of UTC for `Z`, `±HH:MM[:ss]` or `±HHMM`.
    private static func offsetSeconds(_ text: Substring) -> Int {
        guard text != "Z" else { return 0 }
        let digits = text.dropFirst().filter { $0 != ":" }.map { Int(String($0)) ?? 0 }
        var seconds = (digits[0] * 10 + digits[1]) * 3600 + (digits[2] * 10 + digits[3]) * 60
        if digits.count >= 6 { seconds += digits[4] * 10 + digits[5] }
        return text.hasPrefix("-") ? -seconds : seconds
    }

    /// The instant of a calendar date and time at `offset` seconds east of UTC; nil for a
    /// date or time out of range (which the servers refuse too).
    private static func date(
        _ year: Substring, _ month: Substring, _ day: Substring, _ hour: Substring, _ minute: Substring,
        _ second: Substring?, _ fraction: Double, offset: Int
    ) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(
            year: Int(year), month: Int(month), day: Int(day), hour: Int(hour), minute: Int(minute),
            second: second.flatMap { Int($0) } ?? 0)
        guard components.isValidDate(in: calendar), (0..<24).contains(components.hour!),
            (0..<60).contains(components.minute!), (0..<60).contains(components.second!),
            let date = calendar.date(from: components)
        else { return nil }
        return date.addingTimeInterval(fraction - Double(offset))
    }
}
