import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationState

@Suite(.timeLimit(.minutes(10)))
struct NMEAEpochAssemblerTests {
    @Test func withoutADateFixesHaveNoTime() {
        let lines = (0..<3).map { nmea("GPGGA,12000\($0),5230.0000,N,01322.0000,E,1,07,1.2,35.5,M,39.8,M,,") }
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0)
        #expect(located.count == 3)
        #expect(located.allSatisfy { $0.time == nil && $0.hasPosition })
    }

    @Test func dateAdvancesAtMidnightUntilTheNextRMC() {
        let lines = [
            nmea("GPRMC,235958,A,5230.0000,N,01322.0000,E,0,0,311224,,,A"),
            nmea("GPGGA,235958,5230.0000,N,01322.0000,E,1,07,1.2,35.5,M,39.8,M,,"),
            nmea("GPGGA,235959,5230.0000,N,01322.0000,E,1,07,1.2,35.5,M,39.8,M,,"),
            nmea("GPGGA,000000,5230.0000,N,01322.0000,E,1,07,1.2,35.5,M,39.8,M,,"),
            nmea("GPGGA,000001,5230.0000,N,01322.0000,E,1,07,1.2,35.5,M,39.8,M,,"),
        ]
        let times = fixes(decodeNMEA(lines.joined(separator: "\n")).0).compactMap(\.time).map(UTCCalendar.iso8601)
        #expect(
            times == [
                "2024-12-31T23:59:58.000Z", "2024-12-31T23:59:59.000Z", "2025-01-01T00:00:00.000Z",
                "2025-01-01T00:00:01.000Z",
            ])
    }

    /// A sentence that gives the date and opens the epoch after midnight (an RMC or a ZDA
    /// sent first) dates it with its own date, not that date advanced once more; a ZDA at
    /// the end of the last epoch before midnight still lets the next day's GGA advance it.
    @Test(arguments: [
        ("GPRMC,HHMMSS,A,5230.0000,N,01322.0000,E,0,0,DDMMYY,,,A", true),
        ("GPZDA,HHMMSS,DD,MM,20YY,00,00", true),
        ("GPZDA,HHMMSS,DD,MM,20YY,00,00", false),
    ])
    func aDateSentForTheFirstEpochAfterMidnightIsKept(template: String, first: Bool) {
        func dated(_ time: String, _ day: String, _ month: String, _ year: String) -> String {
            nmea(
                template.replacingOccurrences(of: "HHMMSS", with: time)
                    .replacingOccurrences(of: "DDMMYY", with: day + month + year)
                    .replacingOccurrences(of: "DD", with: day).replacingOccurrences(of: "MM", with: month)
                    .replacingOccurrences(of: "YY", with: year))
        }
        let epochs = [
            ("235958", "31", "12", "24"), ("235959", "31", "12", "24"), ("000000", "01", "01", "25"),
            ("000001", "01", "01", "25"),
        ]
        var lines: [String] = []
        for (time, day, month, year) in epochs {
            let gga = nmea("GPGGA,\(time),5230.0000,N,01322.0000,E,1,07,1.2,35.5,M,39.8,M,,")
            lines += first ? [dated(time, day, month, year), gga] : [gga, dated(time, day, month, year)]
        }
        let times = fixes(decodeNMEA(lines.joined(separator: "\n")).0).compactMap(\.time).map(UTCCalendar.iso8601)
        #expect(
            times.suffix(3) == ["2024-12-31T23:59:59.000Z", "2025-01-01T00:00:00.000Z", "2025-01-01T00:00:01.000Z"])
    }

    @Test(arguments: [
        ("220899", nil as NMEADate?, "1999-08-22"),
        ("060419", nil, "2019-04-06"),
        ("220899", NMEADate(year: 2019, month: 1, day: 1), "2019-04-07"),
        ("010180", NMEADate(year: 2024, month: 1, day: 1), "2038-11-16"),
        ("060419", NMEADate(year: 2019, month: 1, day: 1), "2019-04-06"),
    ])
    func gpsWeekRolloverFloor(ddmmyy: String, floor: NMEADate?, expected: String) throws {
        let lines = [
            nmea("GPRMC,120000,A,5230.0000,N,01322.0000,E,0,0,\(ddmmyy),,,A"),
            nmea("GPRMC,120001,A,5230.0000,N,01322.0000,E,0,0,\(ddmmyy),,,A"),
        ]
        let (events, _) = decodeNMEA(lines.joined(separator: "\n"), options: .init(rolloverFloor: floor))
        let time = try #require(fixes(events).first?.time)
        #expect(UTCCalendar.iso8601(time).hasPrefix(expected + "T12:00:00"))
    }

    @Test func fixLossBecomesNoFix() {
        var lines = Array(threeEpochs[0...5])
        for second in 2...4 {
            lines.append(nmea("GPGGA,12000\(second).00,,,,,0,00,,,M,,M,,"))
            lines.append(nmea("GPRMC,12000\(second).00,V,,,,,,,050324,,,N"))
        }
        lines.append(nmea("GPRMC,120005.00,A,5230.0000,N,01322.0500,E,10.0,90.0,050324,,,A"))
        lines.append(nmea("GPGGA,120005.00,5230.0000,N,01322.0500,E,1,07,1.2,35.5,M,39.8,M,,"))
        let (events, _) = decodeNMEA(lines.joined(separator: "\n"))
        let fixTimes = fixes(events).compactMap(\.time).map { Int($0.timeIntervalSince1970) % 60 }
        #expect(fixTimes == [0, 1, 5])
        let noFixes = events.filter { if case .noFix = $0 { true } else { false } }
        #expect(noFixes.count >= 2)
    }

    @Test func speedComesFromPositionsWhenNoSentenceGivesIt() throws {
        let lines = (0..<3).map { second in
            nmea(
                "GPGGA,12000\(second),0000.0000,N,0000.\(String(format: "%04d", second * 600)),E,1,07,1.2,35.5,M,39.8,M,,"
            )
        }
        let rmc = nmea("GPRMC,115959,A,0000.0000,N,00000.0000,E,,,050324,,,A")
        let located = fixes(decodeNMEA(([rmc] + lines).joined(separator: "\n")).0)
        let last = try #require(located.last)
        // 0.06 arc minutes of longitude at the equator per second: 111.319 m on WGS84.
        #expect(abs((last.speed ?? 0) - 111.3195) < 0.01)
    }

    /// The first epoch is taken after every sentence; later ones at the learnt end sentence (GGA
    /// here), as gpsd does. A GSA that says 2D after the GGA's 3D with an altitude does not
    /// downgrade the fix (gpsd 3.22 through gpsfake: mode 3, altMSL 35.5, 35.7, 35.9).
    @Test func fixIsTakenAtTheEndSentence() {
        var lines = threeEpochs
        for index in [2, 5, 8] { lines[index] = nmea("GPGSA,A,2,01,02,03,,,,,,,,,,2.0,1.2,1.6") }
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0)
        #expect(located.map(\.mode) == [.threeD, .threeD, .threeD])
        #expect(located.map(\.altMSL) == [35.5, 35.7, 35.9])
    }

    @Test func ggaWithQualityZeroIsNoFix() {
        let lines = [
            nmea("GPRMC,120000,V,,,,,,,050324,,,N"),
            nmea("GPGGA,120000,5230.0000,N,01322.0000,E,0,04,,35.5,M,39.8,M,,"),
            nmea("GPGGA,120001,5230.0000,N,01322.0000,E,0,04,,35.5,M,39.8,M,,"),
        ]
        #expect(fixes(decodeNMEA(lines.joined(separator: "\n")).0).isEmpty)
    }

    @Test func gstGivesErrorEstimates() throws {
        var lines = threeEpochs
        lines.insert(nmea("GPGST,120001.00,0.006,0.023,0.020,273.6,0.5,0.4,0.9"), at: 4)
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0)
        let fix = located[1]
        #expect(abs((fix.epy ?? 0) - 0.98) < 1e-9)
        #expect(abs((fix.epx ?? 0) - 0.784) < 1e-9)
        #expect(abs((fix.epv ?? 0) - 1.764) < 1e-9)
    }

    @Test func epochCutBeforeItsEndSentenceIsNotReported() {
        let complete =
            threeEpochs + [
                nmea("GPRMC,120003.00,A,5230.0000,N,01322.0300,E,11.0,92.0,050324,,,A"),
                nmea("GPGGA,120003.00,5230.0000,N,01322.0300,E,1,07,1.2,35.9,M,39.8,M,,"),
            ]
        #expect(fixes(decodeNMEA(complete.joined(separator: "\n")).0).count == 4)
        let cut = Array(complete.dropLast())
        #expect(fixes(decodeNMEA(cut.joined(separator: "\n")).0).count == 3)
    }
}
