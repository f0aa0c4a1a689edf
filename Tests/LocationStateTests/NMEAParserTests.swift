import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationState

/// `$BODY*hh` with the right checksum.
func nmea(_ body: String) -> String { "$\(body)*\(NMEAChecksum.hex(body))" }

/// The decoded sentence body, or nil with a recorded issue.
func body(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) -> NMEASentence.Body? {
    guard case .sentence(let sentence) = NMEAParser.parse(line) else {
        Issue.record("not a sentence: \(line) -> \(NMEAParser.parse(line))", sourceLocation: sourceLocation)
        return nil
    }
    return sentence.body
}

@Suite(.timeLimit(.minutes(10)))
struct NMEAParserTests {
    @Test func checksumIsTheXorOfTheBody() {
        #expect(NMEAChecksum.hex("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") == "47")
        #expect(NMEAChecksum.compute([0x41, 0x41]) == 0)
    }

    struct LineCase: Sendable, CustomTestStringConvertible {
        let name: String
        let line: String
        let expected: NMEAParser.Result
        var testDescription: String { name }
    }

    static let lineCases: [LineCase] = [
        LineCase(
            name: "wrong checksum", line: "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*48",
            expected: .badChecksum),
        LineCase(
            name: "one hex digit", line: "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*4",
            expected: .badChecksum),
        LineCase(
            name: "non-hex checksum", line: "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*G7",
            expected: .badChecksum),
        LineCase(
            name: "truncated before the checksum", line: "$GPGGA,123519,4807.038,N,011",
            expected: .malformed),
        LineCase(name: "proprietary", line: nmea("PGRME,15.0,M,45.0,M,25.0,M"), expected: .unknown),
        LineCase(name: "unknown type", line: nmea("GPRMB,V,,,,,,,,,,,,A,S"), expected: .unknown),
        LineCase(name: "AIS", line: "!AIVDM,1,1,,A,13aEOK?P00PD2wVMdLDRhgvL289?,0*26", expected: .unknown),
        LineCase(name: "no dollar", line: "GPGGA,123519,4807.038,N", expected: .notNMEA),
        LineCase(name: "empty", line: "", expected: .notNMEA),
        LineCase(name: "control byte", line: "$GPGGA,12\u{01}3519*00", expected: .notNMEA),
        LineCase(name: "GSA too short (i.Trek M3)", line: nmea("GPGSA,A,1,,,"), expected: .malformed),
        LineCase(name: "GSV bad field count", line: nmea("GPGSV,1,1,01,02,03"), expected: .malformed),
    ]

    @Test(arguments: lineCases)
    func lineIsClassified(_ testCase: LineCase) {
        #expect(NMEAParser.parse(testCase.line) == testCase.expected)
    }

    @Test func ggaFields() throws {
        let line = nmea("GPGGA,123519.25,4807.038,N,01131.000,E,2,08,0.9,545.4,M,46.9,M,,")
        let gga = try #require(body(line)?.gga, "parsed to another sentence type")
        #expect(gga.timeOfDay == ((12 * 60 + 35) * 60 + 19) * 1000 + 250)
        #expect(abs(try #require(gga.latitude) - (48 + 7.038 / 60)) < 1e-12)
        #expect(abs(try #require(gga.longitude) - (11 + 31.0 / 60)) < 1e-12)
        #expect(gga.quality == 2)
        #expect(gga.satellitesUsed == 8)
        #expect(gga.hdop == 0.9)
        #expect(gga.altitudeMSL == 545.4)
        #expect(gga.geoidSeparation == 46.9)
    }

    @Test(arguments: [
        ("4807.038,N", "01131.000,E", 48.1173, 11.516_666_667),
        ("4807.038,S", "01131.000,W", -48.1173, -11.516_666_667),
        ("0000.000,S", "00000.000,W", 0, 0),
        ("8959.999,N", "17959.999,E", 89.999_983_333, 179.999_983_333),
        ("3354.5087,S", "15112.1234,E", -33.908_478_333, 151.202_056_667),
    ])
    func hemispheresAndThreeDigitLongitudes(latitude: String, longitude: String, lat: Double, lon: Double) throws {
        let gll = try #require(
            body(nmea("GPGLL,\(latitude),\(longitude),120000,A,A"))?.gll, "parsed to another sentence type")
        #expect(abs((gll.latitude ?? .nan) - lat) < 1e-8)
        #expect(abs((gll.longitude ?? .nan) - lon) < 1e-8)
    }

    @Test(arguments: [
        "4807.038,X,01131.000,E", "4807.038,N,01131.000,", "9107.000,N,01131.000,E", "4807.038,N,18100.000,E",
        "4861.000,N,01131.000,E", ",N,01131.000,E", "48O7.038,N,01131.000,E",
    ])
    func badPositionsAreAbsent(_ position: String) throws {
        let gll = try #require(body(nmea("GPGLL,\(position),120000,A,A"))?.gll, "parsed to another sentence type")
        #expect(gll.latitude == nil || gll.longitude == nil)
    }

    @Test func emptyFieldsAreNil() throws {
        let gga = try #require(body(nmea("GPGGA,,,,,,0,,,,M,,M,,"))?.gga, "parsed to another sentence type")
        #expect(gga == NMEASentence.GGA(quality: 0))
    }

    @Test func anyTalkerIsAccepted() {
        for talker in ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "QZ", "IN"] {
            guard case .sentence(let sentence) = NMEAParser.parse(nmea("\(talker)ZDA,201530.00,04,07,2002,00,00"))
            else {
                Issue.record("\(talker)ZDA not decoded")
                continue
            }
            #expect(sentence.talker.description == talker)
        }
    }

    @Test func rmcFields() throws {
        let rmc = try #require(
            body(nmea("GPRMC,225446.33,A,4916.45,N,12311.12,W,000.5,054.7,191194,020.3,E,D"))?.rmc,
            "parsed to another sentence type")
        #expect(rmc.timeOfDay == ((22 * 60 + 54) * 60 + 46) * 1000 + 330)
        #expect(rmc.status == UInt8(ascii: "A"))
        #expect(rmc.speedKnots == 0.5)
        #expect(rmc.track == 54.7)
        #expect(rmc.date == NMEADate(year: 1994, month: 11, day: 19))
        #expect(rmc.magneticVariation == 20.3)
        #expect(rmc.faaMode == UInt8(ascii: "D"))
        #expect(abs(try #require(rmc.longitude) + (123 + 11.12 / 60)) < 1e-12)
    }

    @Test(arguments: [
        ("010180", 1980, 1, 1), ("311299", 1999, 12, 31), ("010100", 2000, 1, 1), ("291224", 2024, 12, 29),
        ("310179", 2079, 1, 31), ("290200", 2000, 2, 29),
    ])
    func twoDigitYearsFallIn1980To2079(ddmmyy: String, year: Int, month: Int, day: Int) throws {
        let rmc = try #require(
            body(nmea("GPRMC,000000,A,4916.45,N,12311.12,W,0,0,\(ddmmyy),,"))?.rmc, "parsed to another sentence type")
        #expect(rmc.date == NMEADate(year: year, month: month, day: day))
    }

    @Test(arguments: ["320124", "001224", "011324", "290201", "1224", "3a0124"])
    func impossibleDatesAreAbsent(_ ddmmyy: String) throws {
        let rmc = try #require(
            body(nmea("GPRMC,000000,A,4916.45,N,12311.12,W,0,0,\(ddmmyy),,"))?.rmc, "parsed to another sentence type")
        #expect(rmc.date == nil)
    }

    @Test(arguments: [("235959.999", 86_399_999), ("000000", 0), ("120000.5", 43_200_500), ("235960", 86_400_000)])
    func timesOfDay(text: String, milliseconds: Int) throws {
        let gll = try #require(
            body(nmea("GPGLL,4916.45,N,12311.12,W,\(text),A"))?.gll, "parsed to another sentence type")
        #expect(gll.timeOfDay == milliseconds)
    }

    @Test(arguments: ["240000", "126000", "12000", "12:00:00", "120000.x"])
    func badTimesAreAbsent(_ text: String) throws {
        let gll = try #require(
            body(nmea("GPGLL,4916.45,N,12311.12,W,\(text),A"))?.gll, "parsed to another sentence type")
        #expect(gll.timeOfDay == nil)
    }

    @Test func gsaSatellitesAndDops() throws {
        let gsa = try #require(
            body(nmea("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"))?.gsa, "parsed to another sentence type")
        #expect(gsa.fixType == 3)
        #expect(gsa.satellites == [4, 5, 9, 12, 24])
        #expect(gsa.pdop == 2.5 && gsa.hdop == 1.3 && gsa.vdop == 2.1)
    }

    @Test func gsaWithSystemID() throws {
        let gsa = try #require(
            body(nmea("GNGSA,A,3,82,66,81,,,,,,,,,,1.05,0.64,0.83,2"))?.gsa, "parsed to another sentence type")
        #expect(gsa.satellites == [82, 66, 81])
        #expect(gsa.hdop == 0.64)
    }

    @Test func gsvSatellites() throws {
        let gsv = try #require(
            body(nmea("GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00"))?.gsv,
            "parsed to another sentence type")
        #expect(gsv.sentenceCount == 3 && gsv.sentenceIndex == 1 && gsv.satellitesInView == 11)
        #expect(gsv.satellites.map(\.id) == [3, 4, 6, 13])
        #expect(gsv.satellites[1] == .init(id: 4, elevation: 15, azimuth: 270, snr: 0))
    }

    @Test func vtgFields() throws {
        let vtg = try #require(
            body(nmea("GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A"))?.vtg, "parsed to another sentence type")
        #expect(
            vtg
                == .init(
                    track: 54.7, magneticTrack: 34.4, speedKnots: 5.5, speedKilometersPerHour: 10.2,
                    faaMode: UInt8(ascii: "A")))
    }

    @Test func gnsFields() {
        guard
            case .gns(let gns) = body(
                nmea("GNGNS,224749.00,3333.4268304,N,11153.3538273,W,D,19,0.6,406.110,-26.294,6.0,0138,S"))
        else { Issue.record("parsed to another sentence type"); return }
        #expect(gns.mode == UInt8(ascii: "D"))
        #expect(gns.satellitesUsed == 19)
        #expect(gns.altitudeMSL == 406.11)
        #expect(gns.geoidSeparation == -26.294)
        #expect(gns.navigationalStatus == UInt8(ascii: "S"))
    }

    @Test func zdaFourDigitYear() throws {
        let zda = try #require(body(nmea("GPZDA,201530.00,04,07,2002,00,00"))?.zda, "parsed to another sentence type")
        #expect(zda.date == NMEADate(year: 2002, month: 7, day: 4))
        #expect(zda.timeOfDay == ((20 * 60 + 15) * 60 + 30) * 1000)
    }

    @Test func gstFields() throws {
        let gst = try #require(
            body(nmea("GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031"))?.gst,
            "parsed to another sentence type")
        #expect(gst.latitudeError == 0.023 && gst.longitudeError == 0.020 && gst.altitudeError == 0.031)
        #expect(gst.orientation == 273.6)
    }

    @Test func missingChecksumIsAcceptedWithEnoughFields() throws {
        let gga = try #require(
            body("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,,")?.gga,
            "parsed to another sentence type")
        #expect(gga.altitudeMSL == 545.4)
    }

    @Test func garbageBeforeTheSentenceIsSkipped() {
        #expect(
            body("\u{7F}xx$$GP" + nmea("GPZDA,201530.00,04,07,2002,00,00"))?.zda != nil,
            "parsed to another sentence type")
    }

    @Test func trailingCarriageReturnsAndSpacesAreIgnored() {
        #expect(body(nmea("GPZDA,201530.00,04,07,2002,00,00") + "\r\r ")?.zda != nil, "parsed to another sentence type")
    }

    @Test func lowerCaseChecksumIsAccepted() {
        let other = "GPZDA,201548.00,04,07,2002,00,00"
        #expect(NMEAChecksum.hex(other) == "6F")
        #expect(
            body("$\(other)*\(NMEAChecksum.hex(other).lowercased())")?.zda != nil, "parsed to another sentence type")
    }
}

/// The body as one kind of sentence, or nil: for `try #require(body(line)?.gga)`.
extension NMEASentence.Body {
    var gsv: NMEASentence.GSV? { if case .gsv(let s) = self { s } else { nil } }
    var gga: NMEASentence.GGA? { if case .gga(let s) = self { s } else { nil } }
    var gll: NMEASentence.GLL? { if case .gll(let s) = self { s } else { nil } }
    var gsa: NMEASentence.GSA? { if case .gsa(let s) = self { s } else { nil } }
    var gst: NMEASentence.GST? { if case .gst(let s) = self { s } else { nil } }
    var rmc: NMEASentence.RMC? { if case .rmc(let s) = self { s } else { nil } }
    var vtg: NMEASentence.VTG? { if case .vtg(let s) = self { s } else { nil } }
    var zda: NMEASentence.ZDA? { if case .zda(let s) = self { s } else { nil } }
}
