import LocationState

/// A UTC calendar date as an NMEA sentence gives it (RMC `ddmmyy`, ZDA `dd,mm,yyyy`).
///
/// Date rules locationd applies (see SampleTracks/README.md):
/// - Two-digit years (RMC) are placed in 1980...2079: `80`...`99` are 1980...1999 (GPS began
///   in 1980), `00`...`79` are 2000...2079. gpsd uses the same window.
/// - ZDA's four-digit year is taken as given.
/// - Sentences without a date (GGA, GLL, GNS) take the date of the last RMC or ZDA, advanced
///   by one day when the time of day wraps past midnight. Before any date has been seen a fix
///   has no `time` at all: locationd never invents a date (gpsd does the same).
/// - GPS week rollover: a date is reported as the receiver sent it, by default. A caller that
///   knows the data cannot be older than some day (a live daemon: its build date) sets
///   ``NMEAEpochAssembler/Options/rolloverFloor``, and dates before it move forward by whole
///   1024-week eras. Replay leaves it unset, because an old log is genuinely old.
public struct NMEADate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Four-digit year.
    public let year: Int
    /// 1...12.
    public let month: Int
    /// 1...31.
    public let day: Int

    /// A date, or nil when the month or day is out of range for that month.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= UTCCalendar.daysIn(month: month, year: year) else {
            return nil
        }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date a count of days after 1970-01-01.
    public init(daysSince1970 days: Int) {
        (year, month, day) = UTCCalendar.civil(days: days)
    }

    /// Days since 1970-01-01.
    public var daysSince1970: Int { UTCCalendar.days(year: year, month: month, day: day) }

    /// The full year for a two-digit RMC year: 80...99 → 1980...1999, 00...79 → 2000...2079.
    public static func year(twoDigit yy: Int) -> Int { yy >= 80 ? 1900 + yy : 2000 + yy }

    /// Days in one GPS week-number era (1024 weeks).
    public static let daysPerRolloverEra = 1024 * 7

    public static func < (lhs: NMEADate, rhs: NMEADate) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    public var description: String {
        var bytes: [UInt8] = []
        DecimalFormatting.appendPadded(year, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        DecimalFormatting.appendPadded(month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        DecimalFormatting.appendPadded(day, width: 2, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
