import Foundation

/// Proleptic Gregorian calendar arithmetic in UTC, without Foundation's Calendar (fast,
/// allocation-free), and locationd's one ISO 8601 format: UTC, milliseconds, `Z`.
public enum UTCCalendar {
    /// The days of `month` (1...12) in `year` of the proleptic Gregorian calendar.
    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a civil date (H. Hinnant's `days_from_civil`).
    package static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a count of days since 1970-01-01 (H. Hinnant's `civil_from_days`).
    package static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Appends `date` as ISO 8601 UTC with milliseconds (`2024-05-01T12:00:00.250Z`), truncating below 1 ms.
    package static func appendISO8601(_ date: Date, to out: inout [UInt8]) {
        ByteWriter.append(to: &out, capacity: 40) { $0.iso8601(date) }
    }

    /// Whether ``iso8601(_:)`` writes `date` as itself: years 0000 to 9999 (any other is
    /// written clamped to them).
    public static func canWrite(_ date: Date) -> Bool { ByteWriter.iso8601Range.contains(date.timeIntervalSince1970) }

    /// `date` as ISO 8601 UTC with milliseconds (`2024-05-01T12:00:00.250Z`), truncating below 1 ms.
    public static func iso8601(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendISO8601(date, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `date` in ISO 8601's basic format (`20240501T120000.250Z`), for file names.
    public static func basicISO8601(_ date: Date) -> String {
        String(iso8601(date).unicodeScalars.filter { $0 != "-" && $0 != ":" })
    }

    /// Parses an ISO 8601 time (`YYYY-MM-DDTHH:MM:SS[.fff...]` with `Z` or an offset `+hh:mm`,
    /// `+hhmm` or `+hh`, as gpxpy reads them; `T` or a space between date and time, and
    /// RFC 3339's lower-case `t` and `z`); nil when malformed or not a date of the calendar
    /// (February 30th).
    ///
    /// - Parameters:
    ///   - text: the date and time.
    ///   - zonelessIsUTC: take a time without `Z` or an offset as UTC (GPX, whose schema
    ///     says its times are UTC) instead of refusing it.
    public static func parseISO8601(_ text: some StringProtocol, zonelessIsUTC: Bool = false) -> Date? {
        Array(text.utf8).withUnsafeBufferPointer { parseISO8601(utf8: $0, zonelessIsUTC: zonelessIsUTC) }
    }

    /// ``parseISO8601(_:zonelessIsUTC:)`` of the UTF-8 bytes of a time, read in place.
    package static func parseISO8601(utf8 bytes: UnsafeBufferPointer<UInt8>, zonelessIsUTC: Bool) -> Date? {
        func number(_ start: Int, _ width: Int) -> Int? {
            guard start + width <= bytes.count else { return nil }
            var value = 0
            for index in start..<start + width {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard bytes.count >= (zonelessIsUTC ? 19 : 20), bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "t"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
            second <= 60
        else { return nil }
        var index = 19
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < bytes.count, let digit = number(index, 1) {
                fraction += Double(digit) * scale
                scale /= 10
                index += 1
            }
        }
        var offsetSeconds = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
            index += 1
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            // `+hh:mm`, `+hhmm` or `+hh`.
            let rest = bytes.count - index - 1
            let colon = rest == 5 && bytes[index + 3] == UInt8(ascii: ":")
            guard rest == 2 || rest == 4 || colon, let hours = number(index + 1, 2), hours < 24 else { return nil }
            guard let minutes = rest == 2 ? 0 : number(index + (colon ? 4 : 3), 2), minutes < 60 else { return nil }
            offsetSeconds = (hours * 3600 + minutes * 60) * (bytes[index] == UInt8(ascii: "-") ? -1 : 1)
            index = bytes.count
        } else if !(zonelessIsUTC && index == bytes.count) {
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds = days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        return Date(timeIntervalSince1970: Double(seconds - offsetSeconds) + fraction)
    }

}

extension Int {
    /// The non-negative remainder of division by `divisor`.
    package func mod(_ divisor: Int) -> Int {
        let remainder = self % divisor
        return remainder < 0 ? remainder + divisor : remainder
    }
}
