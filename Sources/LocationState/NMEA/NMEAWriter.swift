import Foundation

/// Writes fixes as NMEA 0183 sentences that ``NMEADecoder`` reads back to the same fixes.
///
/// Each fix becomes a GGA (position, quality, satellites, HDOP, altitude, geoid
/// separation) and an RMC (validity, speed, course, date), CRLF-terminated, with
/// checksums; a no-fix report becomes a GGA with quality 0 and an RMC with status `V`.
/// Precision: 7 decimals of arc minutes (under 1 mm), altitude in millimetres, speed to
/// 0.0001 knot, course to 0.001°, time to the millisecond.
///
/// - Important: GGA needs a satellite count for the reader to see a fix (3 for 2D,
///   4 for 3D). When a fix does not say how many satellites it used, the writer puts
///   that minimum, so `satellitesUsed` reads back as 3 or 4 rather than absent.
///   A date outside 1980...2079 cannot be written in RMC's two-digit year.
public struct NMEAWriter: Sendable {
    /// The talker of every sentence.
    public var talker: NMEATalker

    public init(talker: NMEATalker = "GP") {
        self.talker = talker
    }

    /// Appends the sentences for one fix (nothing when it has no position).
    public func append(_ location: Location, to out: inout [UInt8]) {
        guard location.hasPosition, let latitude = location.lat, let longitude = location.lon else { return }
        let time = location.time
        let threeD = location.mode == .threeD && location.altMSL != nil
        let satellites = max(location.satellitesUsed ?? 0, threeD ? 4 : 3)
        sentence(&out) { body in
            DecimalFormatting.appendLiteral("GGA,", to: &body)
            NMEAWriter.appendTime(time, to: &body)
            body.append(UInt8(ascii: ","))
            NMEAWriter.appendAngle(latitude, degreeDigits: 2, positive: "N", negative: "S", to: &body)
            body.append(UInt8(ascii: ","))
            NMEAWriter.appendAngle(longitude, degreeDigits: 3, positive: "E", negative: "W", to: &body)
            body.append(UInt8(ascii: ","))
            DecimalFormatting.appendInteger(NMEAWriter.quality(status: location.status), to: &body)
            body.append(UInt8(ascii: ","))
            DecimalFormatting.appendPadded(satellites, width: 2, to: &body)
            body.append(UInt8(ascii: ","))
            if let hdop = location.hdop { DecimalFormatting.append(hdop, decimals: 2, to: &body) }
            body.append(UInt8(ascii: ","))
            if threeD, let altitude = location.altMSL { DecimalFormatting.append(altitude, decimals: 3, to: &body) }
            DecimalFormatting.appendLiteral(",M,", to: &body)
            if threeD, let separation = location.geoidSep {
                DecimalFormatting.append(separation, decimals: 3, to: &body)
            }
            DecimalFormatting.appendLiteral(",M,,", to: &body)
        }
        sentence(&out) { body in
            DecimalFormatting.appendLiteral("RMC,", to: &body)
            NMEAWriter.appendTime(time, to: &body)
            DecimalFormatting.appendLiteral(",A,", to: &body)
            NMEAWriter.appendAngle(latitude, degreeDigits: 2, positive: "N", negative: "S", to: &body)
            body.append(UInt8(ascii: ","))
            NMEAWriter.appendAngle(longitude, degreeDigits: 3, positive: "E", negative: "W", to: &body)
            body.append(UInt8(ascii: ","))
            if let speed = location.speed {
                DecimalFormatting.append(speed / NMEAEpochAssembler.metersPerSecondPerKnot, decimals: 4, to: &body)
            }
            body.append(UInt8(ascii: ","))
            if let track = location.track { DecimalFormatting.append(track, decimals: 3, to: &body) }
            body.append(UInt8(ascii: ","))
            NMEAWriter.appendDate(time, to: &body)
            DecimalFormatting.appendLiteral(",,,", to: &body)
            body.append(location.status == 2 ? UInt8(ascii: "D") : UInt8(ascii: "A"))
        }
    }

    /// Appends a no-fix report at `time`: GGA quality 0 and RMC status `V`.
    public func appendNoFix(at time: Date?, to out: inout [UInt8]) {
        sentence(&out) { body in
            DecimalFormatting.appendLiteral("GGA,", to: &body)
            NMEAWriter.appendTime(time, to: &body)
            DecimalFormatting.appendLiteral(",,,,,0,00,,,M,,M,,", to: &body)
        }
        sentence(&out) { body in
            DecimalFormatting.appendLiteral("RMC,", to: &body)
            NMEAWriter.appendTime(time, to: &body)
            DecimalFormatting.appendLiteral(",V,,,,,,,", to: &body)
            NMEAWriter.appendDate(time, to: &body)
            DecimalFormatting.appendLiteral(",,,N", to: &body)
        }
    }

    /// The sentences for one fix as text (CRLF line ends).
    public func text(for location: Location) -> String {
        var bytes: [UInt8] = []
        append(location, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Frames one sentence: `$`, talker, the body `fill` writes, `*hh` and CRLF.
    private func sentence(_ out: inout [UInt8], _ fill: (inout [UInt8]) -> Void) {
        out.append(UInt8(ascii: "$"))
        let start = out.count
        out.append(talker.first)
        out.append(talker.second)
        fill(&out)
        let sum = NMEAChecksum.compute(out[start...])
        out.append(UInt8(ascii: "*"))
        out.append(NMEAWriter.hexDigits[Int(sum >> 4)])
        out.append(NMEAWriter.hexDigits[Int(sum & 0xF)])
        out.append(13)
        out.append(10)
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// `hhmmss.sss`, empty when there is no time.
    static func appendTime(_ time: Date?, to out: inout [UInt8]) {
        guard let time else { return }
        let milliseconds = Int((time.timeIntervalSince1970 * 1000).rounded()).mod(86_400_000)
        DecimalFormatting.appendPadded(milliseconds / 3_600_000, width: 2, to: &out)
        DecimalFormatting.appendPadded(milliseconds / 60_000 % 60, width: 2, to: &out)
        DecimalFormatting.appendPadded(milliseconds / 1000 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: "."))
        DecimalFormatting.appendPadded(milliseconds % 1000, width: 3, to: &out)
    }

    /// `ddmmyy`, empty when there is no time.
    static func appendDate(_ time: Date?, to out: inout [UInt8]) {
        guard let time else { return }
        let milliseconds = Int((time.timeIntervalSince1970 * 1000).rounded())
        let date = NMEADate(daysSince1970: (milliseconds - milliseconds.mod(86_400_000)) / 86_400_000)
        DecimalFormatting.appendPadded(date.day, width: 2, to: &out)
        DecimalFormatting.appendPadded(date.month, width: 2, to: &out)
        DecimalFormatting.appendPadded(date.year % 100, width: 2, to: &out)
    }

    /// `ddmm.mmmmmmm,H` (latitude) or `dddmm.mmmmmmm,H` (longitude).
    static func appendAngle(
        _ value: Double, degreeDigits: Int, positive: Unicode.Scalar, negative: Unicode.Scalar, to out: inout [UInt8]
    ) {
        let tenMillionthsOfMinute = Int((abs(value) * 60 * 10_000_000).rounded())
        let degrees = tenMillionthsOfMinute / 600_000_000
        let minutes = tenMillionthsOfMinute % 600_000_000
        DecimalFormatting.appendPadded(degrees, width: degreeDigits, to: &out)
        DecimalFormatting.appendPadded(minutes / 10_000_000, width: 2, to: &out)
        out.append(UInt8(ascii: "."))
        DecimalFormatting.appendPadded(minutes % 10_000_000, width: 7, to: &out)
        out.append(UInt8(ascii: ","))
        out.append(UInt8(ascii: value < 0 ? negative : positive))
    }

    /// The GGA fix quality for a gpsd status.
    static func quality(status: Int?) -> Int {
        switch status {
        case 2: 2
        case 3: 4
        case 4: 5
        case 5: 6
        case 8: 8
        default: 1
        }
    }
}
