import Foundation

/// When a reporting cycle starts, and what time a fix of it has, as gpsd decides.
extension NMEAEpochAssembler {
    /// Whether a timed sentence at `time` starts a new reporting cycle after one at `last`
    /// (times of day in milliseconds), as gpsd 3.22's NMEA driver decides.
    ///
    /// gpsd reads each time field as the number hhmmss.sss (`safe_atof`, which divides the
    /// digits by a power of ten: the nearest double), splits it into whole seconds and
    /// truncated nanoseconds (`DTOTS`), subtracts, and starts a cycle when the difference
    /// is more than 0.01. As numbers, 123559.995 and 123600.000 are 41.005 apart; and
    /// at exactly 10 ms the nanoseconds lost to the truncation decide (123519.000 to
    /// .010 is one cycle, 123607.120 to .130 two, as gpsd 3.22 reports through gpsfake).
    package static func startsCycle(_ time: Int, after last: Int) -> Bool {
        // As numbers, two times are at least as far apart as in milliseconds (a minute
        // boundary adds 40 s, an hour's 4040 s): most sentences need no conversion.
        let milliseconds = abs(time - last)
        if milliseconds > epochTolerance { return true }
        if milliseconds == 0 { return false }
        let difference = abs(gpsdNumber(time) - gpsdNumber(last))
        guard difference == epochTolerance else { return difference > epochTolerance }
        let (seconds, nanoseconds) = (gpsdTimespec(time), gpsdTimespec(last))
        var wholeSeconds = seconds.seconds - nanoseconds.seconds
        var fraction = seconds.nanoseconds - nanoseconds.nanoseconds
        // TS_NORM
        if wholeSeconds > 0, fraction < 0 {
            wholeSeconds -= 1
            fraction += 1_000_000_000
        } else if wholeSeconds < 0, fraction > 0 {
            wholeSeconds += 1
            fraction -= 1_000_000_000
        }
        return 0.01 < abs(Double(wholeSeconds) + Double(fraction) / 1e9)
    }

    /// A time of day (milliseconds) as the decimal number hhmmss.sss, in thousandths.
    package static func gpsdNumber(_ time: Int) -> Int {
        let seconds = time / 1000
        return ((seconds / 3600) * 10_000 + (seconds % 3600 / 60) * 100 + seconds % 60) * 1000 + time % 1000
    }

    /// gpsd's timespec of a time field: `DTOTS(safe_atof(field))`.
    package static func gpsdTimespec(_ time: Int) -> (seconds: Int, nanoseconds: Int) {
        let value = Double(gpsdNumber(time)) / 1000
        let whole = value.rounded(.towardZero)
        return (Int(whole), Int((value - whole) * 1e9))
    }

    package static func fixTime(timeOfDay: Int, day: Int?, rolloverFloor: NMEADate?) -> Date? {
        guard var day else { return nil }
        if let floor = rolloverFloor?.daysSince1970, day < floor {
            let eras = (floor - day + NMEADate.daysPerRolloverEra - 1) / NMEADate.daysPerRolloverEra
            day += eras * NMEADate.daysPerRolloverEra
        }
        return Date(timeIntervalSince1970: Double(day * 86_400) + Double(timeOfDay) / 1000)
    }
}
