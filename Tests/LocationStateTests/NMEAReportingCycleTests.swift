import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationState

/// A time of day hhmmss.sss (as NMEA writes it) from milliseconds since midnight.
private func nmeaTime(_ milliseconds: Int, decimals: Int = 3) -> String {
    let seconds = milliseconds / 1000
    let fraction = String(format: "%03d", milliseconds % 1000).prefix(decimals)
    return String(format: "%02d%02d%02d.", seconds / 3600, seconds % 3600 / 60, seconds % 60) + fraction
}

private func milliseconds(_ hours: Int, _ minutes: Int, _ seconds: Int, _ milliseconds: Int = 0) -> Int {
    ((hours * 60 + minutes) * 60 + seconds) * 1000 + milliseconds
}

/// Milliseconds past the minute of a fix's time, and the minute: "35:19.010".
private func clock(_ location: Location) -> String {
    guard let time = location.time else { return "untimed" }
    return String(UTCCalendar.iso8601(time).dropFirst(14).dropLast())
}

private func gga(_ time: Int, latitude: String = "4807.0380", altitude: String = "545.4", decimals: Int = 3) -> String {
    nmea("GPGGA,\(nmeaTime(time, decimals: decimals)),\(latitude),N,01131.0000,E,1,08,0.9,\(altitude),M,46.9,M,,")
}

private func rmc(_ time: Int, latitude: String = "4807.0380", knots: String = "022.4", decimals: Int = 3) -> String {
    nmea("GPRMC,\(nmeaTime(time, decimals: decimals)),A,\(latitude),N,01131.0000,E,\(knots),084.4,230394,003.1,W")
}

/// The rules of gpsd 3.22's NMEA reporting cycle (driver_nmea0183.c, gpsd.c), each
/// pinned by a small synthetic log; the expected fixes are what gpsd 3.22 reported for
/// the same logs through gpsfake.
@Suite(.timeLimit(.minutes(10)))
struct NMEAReportingCycleTests {
    /// gpsd reports at every cycle-ending sentence, with that sentence's time: a 100 Hz
    /// receiver's epochs, 10 ms apart, are 300 fixes, not one.
    @Test func aHundredHertzReceiverReportsEveryEpoch() {
        var lines: [String] = []
        let start = milliseconds(12, 35, 19)
        for epoch in 0..<300 {
            let latitude = String(format: "4807.%04d", 38 + epoch)
            lines.append(gga(start + 10 * epoch, latitude: latitude, decimals: 2))
            lines.append(rmc(start + 10 * epoch, latitude: latitude, decimals: 2))
        }
        let (events, statistics) = decodeNMEA(lines.joined(separator: "\n"))
        let located = fixes(events).filter { $0.time != nil }
        #expect(located.count == 300)
        #expect(statistics.fixes == 300)
        #expect(Set(located.map(clock)).count == 300)
        #expect(located.first.map(clock) == "35:19.000" && located.last.map(clock) == "35:21.990")
        for (epoch, fix) in located.enumerated() {
            #expect(abs(fix.lat! - (48 + (7 + Double(38 + epoch) / 10_000) / 60)) < 1e-9)
        }
    }

    /// Whether two timed sentences are one cycle: more than 0.01 s apart as the numbers
    /// hhmmss.sss, and at exactly 0.01 as gpsd's floating point has it. Each row is what
    /// gpsd 3.22 did, seen by whether it kept the first one's altitude (below).
    @Test(arguments: [
        (milliseconds(12, 35, 19, 0), milliseconds(12, 35, 19, 10), false),
        (milliseconds(12, 35, 19, 50), milliseconds(12, 35, 19, 60), false),
        (milliseconds(12, 35, 19, 990), milliseconds(12, 35, 20, 0), false),
        (milliseconds(12, 35, 20, 500), milliseconds(12, 35, 20, 510), false),
        (milliseconds(12, 35, 59, 990), milliseconds(12, 36, 0, 0), true),
        (milliseconds(12, 36, 5, 0), milliseconds(12, 36, 5, 10), false),
        (milliseconds(12, 36, 7, 120), milliseconds(12, 36, 7, 130), true),
        (milliseconds(12, 59, 59, 995), milliseconds(13, 0, 0, 0), true),
        (milliseconds(12, 0, 0, 0), milliseconds(12, 0, 0, 4), false),
        (milliseconds(12, 0, 0, 0), milliseconds(12, 0, 0, 11), true),
    ])
    func cycleStartsAsGpsdDecides(first: Int, second: Int, starts: Bool) {
        #expect(NMEAEpochAssembler.startsCycle(second, after: first) == starts)
        // A second epoch without GGA keeps the first one's altitude when gpsd did not
        // start a new cycle (it did not clear its fix).
        let lines = [gga(first), rmc(first), rmc(second, latitude: "4807.0390")]
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0).filter { $0.time != nil }
        #expect(located.map(clock) == [first, second].map { clock(milliseconds: $0) })
        #expect(located.last?.altMSL == (starts ? nil : 545.4))
    }

    /// Sentences of one epoch whose times are a few milliseconds apart (GLL with
    /// milliseconds after GGA and RMC with centiseconds) are one cycle; its fix has the
    /// time of the sentence that ends it, the latest timed one, as gpsd's `TIME_SET`.
    @Test func anEpochOfSentencesAFewMillisecondsApartIsOneFixAtTheEndersTime() {
        var lines: [String] = []
        for second in 0..<4 {
            let time = milliseconds(10, 0, second)
            lines.append(rmc(time, decimals: 2))
            lines.append(gga(time, altitude: "10\(second).0", decimals: 2))
            lines.append(nmea("GPGLL,4807.0380,N,01131.0000,E,\(nmeaTime(time + 4)),A,A"))
            lines.append(nmea("GPGSA,A,3,01,02,03,04,05,06,07,,,,,,2.0,0.9,1.6"))
        }
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0)
        // Before it knows the cycle's end (the first second), gpsd reports after RMC, GGA
        // and GLL: the first second has a fix at each of its two times.
        #expect(located.map(clock) == ["00:00.000", "00:00.004", "00:01.004", "00:02.004", "00:03.004"])
        #expect(located.map(\.altMSL) == [100, 100, 101, 102, 103])
    }

    /// Sentences 5 ms apart across a minute are two cycles for gpsd (the numbers
    /// 100059.995 and 100100.000 are 41.005 apart): the GGA at 59.995, which does not end
    /// a cycle, is not reported, and the RMC after it does not inherit its altitude.
    @Test func aMinuteBoundaryStartsACycleEvenAFewMillisecondsLater() {
        let lines = [
            gga(milliseconds(10, 0, 58)), rmc(milliseconds(10, 0, 58)),
            gga(milliseconds(10, 0, 59, 995)), rmc(milliseconds(10, 1, 0)),
        ]
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0)
        #expect(located.map(clock) == ["00:58.000", "01:00.000"])
        #expect(located.first?.altMSL == 545.4 && located.last?.altMSL == nil)
    }

    /// GBS is timed for gpsd's cycle (it registers its time): a u-blox receiver that ends
    /// each second with GBS has its last second, cut after GGA, not reported.
    @Test func gbsEndsTheCycleOfAReceiverThatSendsItLast() {
        var lines: [String] = []
        for second in 0..<4 {
            let time = "1200\(String(format: "%02d", second)).00"
            let longitude = String(format: "01322.%04d", second * 100)
            lines.append(nmea("GPRMC,\(time),A,5230.0000,N,\(longitude),E,0.1,,050324,,,D"))
            lines.append(nmea("GPGGA,\(time),5230.0000,N,\(longitude),E,2,12,0.8,35.5,M,39.8,M,,0000"))
            if second < 3 {
                lines.append(nmea("GPGST,\(time),18,,,,0.69,0.48,1.0"))
                lines.append(nmea("GPZDA,\(time),05,03,2024,00,00"))
                lines.append(nmea("GPGBS,\(time),0.7,0.5,1.0,,,,"))
            }
        }
        let (events, statistics) = decodeNMEA(lines.joined(separator: "\n"))
        #expect(fixes(events).map(clock) == ["00:00.000", "00:01.000", "00:02.000"])
        #expect(statistics.unknownSentences == 0)
    }

    /// A marine log: an echo sounder's DBT puts gpsd in its continuation mode for good, where
    /// each untimed sentence takes the cycle's end over from the timed one before it, and
    /// reports if gpsd decodes it into something (HDG, not GLC, which it does not decode).
    /// The chartplotter sends GGA a second behind GLL and RMC: after the first DBT the GGA
    /// is never reported, so its altitude never reaches a fix, as gpsd 3.22 reports it.
    @Test func aDepthSounderPutsTheCycleInContinuationMode() {
        var lines: [String] = []
        for second in 0..<5 {
            let time = "0947\(30 + second)"
            let next = "0947\(31 + second)"
            lines.append(
                nmea("GPGGA,\(time),5251.\(1001 + 10 * second),N,00518.8000,E,1,12,0.60,-\(4 + second),M,46.8,M,,"))
            lines.append(nmea("GPGLC,9960,,,,,,,,,,,,"))
            lines.append(nmea("GPGLL,5251.\(1005 + 10 * second),N,00518.8000,E,\(next),A,A"))
            lines.append(nmea("GPRMC,\(next),A,5251.\(1005 + 10 * second),N,00518.8000,E,5.6,230.5,200818,1.4,E,A"))
            lines.append(nmea("GPVTG,230.5,T,229.1,M,5.6,N,10.4,K,A"))
            lines.append(nmea("SDDBT,17.5,f,5.3,M,2.9,F"))
            lines.append(nmea("SDHDG,231.5,,,1.3,E"))
        }
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0).filter { $0.time != nil }
        #expect(located.map(clock) == ["47:31.000", "47:32.000", "47:33.000", "47:34.000", "47:35.000"])
        let minutes = located.map { (($0.lat! - 52) * 60 * 10_000).rounded() / 10_000 }
        #expect(minutes == [51.1011, 51.1015, 51.1025, 51.1035, 51.1045])
        #expect(located.map(\.altMSL) == [-5, nil, nil, nil, nil])
    }

    /// Until it knows which sentence ends a cycle, gpsd reports after each sentence that
    /// sets a position or the fix mode, not after VTG: the first epoch's speed is RMC's.
    @Test func beforeTheCycleIsKnownOnlyPositionOrModeReports() throws {
        let lines = [
            rmc(milliseconds(9, 0, 0), knots: "010.0"), gga(milliseconds(9, 0, 0)),
            nmea("GPVTG,084.4,T,,M,020.0,N,037.0,K,A"),
            rmc(milliseconds(9, 0, 1), knots: "010.0"), gga(milliseconds(9, 0, 1)),
            nmea("GPVTG,084.4,T,,M,020.0,N,037.0,K,A"),
        ]
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0)
        let first = try #require(located.first)
        #expect(abs(first.speed! - 10 * NMEAEpochAssembler.metersPerSecondPerKnot) < 1e-9)
    }
}

/// `clock(_:)` of a fix at `milliseconds` since midnight.
private func clock(milliseconds: Int) -> String {
    let seconds = milliseconds / 1000
    return String(format: "%02d:%02d.%03d", seconds % 3600 / 60, seconds % 60, milliseconds % 1000)
}
