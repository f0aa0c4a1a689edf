import Foundation
import LocationTestSupport
import Testing

@testable import LocationState

/// Which sentence decides a fix's dimension, and with it whether the fix carries an
/// altitude, where the sentences of an epoch disagree: gpsd 3.20's rules, as its regression
/// logs (the fixes gpsd reported for them) show.
@Suite(.timeLimit(.minutes(10)))
struct NMEAModeRulesTests {
    private static func epoch(_ second: Int, satellites: String, gsaMode: Int) -> [String] {
        let time = String(format: "1203%02d", second)
        return [
            nmea("GPRMC,\(time),A,4221.3871,N,01322.0800,E,000.0,000.0,150305,001.4,E"),
            nmea("GPGGA,\(time),4221.3871,N,01322.0800,E,1,\(satellites),3.1,746.1,M,44.2,M,,"),
            nmea("GPGSA,A,\(gsaMode),01,03,,14,,,,,,,,,3.1,3.1,"),
        ]
    }

    /// A GGA with three satellites (2D) and a GSA that says 2D do not downgrade a 3D fix that
    /// holds an altitude (the RMC made it 3D from the epoch before's altitude): the fix stays
    /// 3D and keeps the GGA's altitude (a Garmin 25LP).
    @Test func aThreeDimensionalFixIsNotDowngradedWhileItHoldsAnAltitude() throws {
        let lines =
            Self.epoch(26, satellites: "00", gsaMode: 2)
            + (27...31).flatMap {
                Self.epoch($0, satellites: "03", gsaMode: 2)
            }
        // The first epoch, whose GGA has no satellites, is a 2D fix without altitude.
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0).filter { $0.time != nil }
        #expect(located.count == 6)
        for fix in located.dropFirst() {
            #expect(fix.mode == .threeD)
            #expect(fix.altMSL == 746.1)
            #expect(fix.altHAE.map { abs($0 - 790.3) < 1e-9 } == true)
        }
    }

    /// GGA then RMC, eight satellites, the GGA's altitude empty from the second epoch to the
    /// sixth: the fix stays 3D while the epoch before was 3D and it or the one before it had
    /// an altitude, then 2D; the RMC does not lift it back to 3D from the last fix reported
    /// (gpsd 3.20 under gpsfake: 3, 3, 3, 2, 2, 2, 3, 3). RMC first, the RMC keeps the last
    /// epoch's mode, and the hold is one epoch shorter (3, 3, 2, 2, 2, 2, 3, 3).
    @Test(arguments: [(false, [3, 3, 3, 2, 2, 2, 3, 3]), (true, [3, 3, 2, 2, 2, 2, 3, 3])])
    func aFixWithoutAltitudeStaysThreeDimensionalForTwoEpochs(rmcFirst: Bool, modes: [Int]) {
        var lines: [String] = []
        for epoch in 0..<8 {
            let time = String(format: "0703%02d.%d00", 39 + (epoch + 0) / 2, epoch % 2 * 5)
            let altitude = (1...5).contains(epoch) ? ",," : "1107.8,M,"
            let gga = nmea("GPGGA,\(time),4850.7722,S,00211.6864,E,1,08,0.9,\(altitude),M,,")
            let rmc = nmea("GPRMC,\(time),A,4850.7722,S,00211.6864,E,42.2,349.8,010524,,,A")
            lines += rmcFirst ? [rmc, gga] : [gga, rmc]
        }
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0).filter { $0.time != nil }
        #expect(located.map(\.mode.rawValue) == modes)
    }

    /// The first epoch, before any date: a GGA with three satellites and no altitude, a GNGSA
    /// saying 3D, then the RMC that gives the date. Nothing merged had a time, so gpsd's
    /// `lastfix` is still empty and the RMC makes the fix 2D (gpsd 3.22 under gpsfake: 2, then
    /// 3 from the second epoch, whose GSA counts eight satellites).
    @Test func beforeTheFirstDateTheRMCDoesNotKeepAGSAs3D() {
        let lines = [
            nmea("GNGGA,102548.000,3204.731101,S,13544.582702,W,1,03,0.9,,,,M,,"),
            nmea("GNGSA,A,3,01,02,03,,,,,,,,,,1.8,0.9,1.5"),
            nmea("GNRMC,102548.000,A,3204.731101,S,13544.582702,W,30.569,278.6,010524,,,A"),
            nmea("GNGGA,102549.000,3204.730879,S,13544.586516,W,1,08,0.9,,,,M,,"),
            nmea("GNGSA,A,3,01,02,03,04,05,06,07,08,,,,,1.8,0.9,1.5"),
            nmea("GNRMC,102549.000,A,3204.730879,S,13544.586516,W,30.415,275.0,010524,,,A"),
            nmea("GNGGA,102550.000,3204.728564,S,13544.582449,W,1,12,0.9,1788.6,M,,M,,"),
        ]
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0).filter { $0.time != nil }
        #expect(located.map(\.mode.rawValue) == [2, 3])
    }

    /// Without an altitude in this epoch or the one before, a GSA's 2D stands, and a 2D fix
    /// carries no altitude.
    @Test func withoutAnAltitudeTwoDimensionsStand() throws {
        var lines: [String] = []
        for second in 26...30 {
            let time = String(format: "1203%02d", second)
            lines.append(nmea("GPRMC,\(time),A,4221.3871,N,01322.0800,E,000.0,000.0,150305,001.4,E"))
            lines.append(nmea("GPGGA,\(time),4221.3871,N,01322.0800,E,1,03,3.1,,M,44.2,M,,"))
            lines.append(nmea("GPGSA,A,2,01,03,,14,,,,,,,,,3.1,3.1,"))
        }
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0).filter { $0.time != nil }
        #expect(located.count == 5)
        #expect(located.allSatisfy { $0.mode == .twoD && $0.altMSL == nil })
    }

    /// A GLL after a 3D fix with no altitude of its own cannot tell 2D from 3D and sets no
    /// mode: starting an epoch, it leaves it without one, and no fix is reported for it.
    @Test func aGLLThatCannotTellSetsNoMode() throws {
        let lines = [
            nmea("INRMC,194101,A,4426.1130,N,07140.5596,W,5.2,77.3,160906,15.8,W"),
            nmea("INGGA,194104,4426.1138,N,07140.5536,W,2,10,0.9,267.9,M,,,,"),
            nmea("INRMC,194105,A,4426.1142,N,07140.5515,W,5.3,76.8,160906,15.8,W"),
            nmea("INGLL,4426.1146,N,07140.5499,W,194106,A"),
            nmea("INRMC,194107,A,4426.1149,N,07140.5477,W,5.3,76.6,160906,15.8,W"),
        ]
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0).filter { $0.time != nil }
        let seconds = located.compactMap { $0.time.map { Int($0.timeIntervalSince1970) % 60 } }
        #expect(!seconds.contains(6))
        #expect(seconds.contains(5) && seconds.contains(7))
    }

    /// A 2D fix carries the altitude its GGA gave (gpsd reports altMSL whatever the mode),
    /// but no vertical error and no climb, which need a 3D fix (a Telit SL869).
    @Test func aTwoDimensionalFixKeepsItsAltitude() throws {
        let lines = [
            nmea("GPRMC,102142.000,V,3340.8472,S,15117.3205,E,0.0,0.0,251112,0.0,W"),
            nmea("GPGGA,102142.000,3340.8472,S,15117.3205,E,0,02,99.0,064.19,M,22.4,M,,"),
            nmea("GPRMC,102143.000,A,3340.7732,S,15117.4478,E,6.7,155.1,251112,0.0,W"),
            nmea("GPGGA,102143.000,3340.7732,S,15117.4478,E,1,03,4.1,063.76,M,22.4,M,,"),
            nmea("GPRMC,102144.000,A,3340.7753,S,15117.4473,E,6.6,155.8,251112,0.0,W"),
        ]
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0).filter { $0.time != nil }
        let fix = try #require(located.first)
        #expect(fix.mode == .twoD)
        #expect(fix.altMSL == 63.76)
        #expect(fix.epv == nil && fix.climb == nil)
    }

    /// A speed no sentence gave is measured from the epoch before, reported or not (gpsd's
    /// `oldfix`): here the GGA at .10, which gpsd does not report, not the RMC at .00 (an OxTS
    /// receiver; gpsd 3.22 through gpsfake reports 4.698 m/s at .20, then 4.628 and 4.599).
    @Test func aDerivedSpeedIsMeasuredFromTheEpochBefore() throws {
        let lines = [
            nmea("GPRMC,204132.00,A,4205.733476,N,08802.041110,W,9.415,21.404,190214,,,D"),
            nmea("GPGGA,204132.10,4205.733715,N,08802.040978,W,2,08,1.0,221.921,M,,,3,0138"),
            nmea("GPGGA,204132.20,4205.733946,N,08802.040837,W,2,08,1.0,221.912,M,,,3,0138"),
            nmea("GPGGA,204132.30,4205.734170,N,08802.040688,W,2,08,1.0,221.903,M,,,3,0138"),
            nmea("GPGGA,204132.40,4205.734388,N,08802.040528,W,2,08,1.0,221.896,M,,,3,0138"),
        ]
        let located = fixes(decodeNMEA(lines.joined(separator: "\n")).0).filter { $0.time != nil }
        let speeds = located.map { (($0.speed ?? -1) * 1000).rounded() / 1000 }
        #expect(speeds == [4.843, 4.698, 4.628, 4.599])
    }
}
