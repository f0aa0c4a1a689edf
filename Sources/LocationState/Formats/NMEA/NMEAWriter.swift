import Foundation
import LocationState

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

    /// Room for the sentences of one fix. Each sentence holds at most 3 decimals and
    /// 2 integers (``ByteWriter``: 32 and 25 bytes), 2 angles (37 bytes), a time (10),
    /// a date (75) and under 40 bytes of framing and literals: under 512 bytes.
    private static let maxFixBytes = 1024

    /// Appends the sentences for one fix (nothing when it has no position).
    ///
    /// One pass over a stack buffer and one append to `out`: no allocation besides
    /// `out` growing, since a recorder calls this for every fix.
    public func append(_ location: Location, to out: inout [UInt8]) {
        guard location.hasPosition, let latitude = location.lat, let longitude = location.lon else { return }
        let milliseconds = location.time.map(NMEAWriter.milliseconds)
        let threeD = location.mode == .threeD && location.altMSL != nil
        let satellites = max(location.satellitesUsed ?? 0, threeD ? 4 : 3)
        ByteWriter.append(to: &out, capacity: Self.maxFixBytes) { body in
            sentence(&body) { body in
                body.literal("GGA,")
                NMEAWriter.writeTime(milliseconds, to: &body)
                body.byte(UInt8(ascii: ","))
                NMEAWriter.writeAngle(latitude, degreeDigits: 2, positive: "N", negative: "S", to: &body)
                body.byte(UInt8(ascii: ","))
                NMEAWriter.writeAngle(longitude, degreeDigits: 3, positive: "E", negative: "W", to: &body)
                body.byte(UInt8(ascii: ","))
                body.integer(NMEAWriter.quality(status: location.status))
                body.byte(UInt8(ascii: ","))
                body.integer(satellites, width: 2)
                body.byte(UInt8(ascii: ","))
                if let hdop = location.hdop { body.decimal(hdop, decimals: 2) }
                body.byte(UInt8(ascii: ","))
                if threeD, let altitude = location.altMSL { body.decimal(altitude, decimals: 3) }
                body.literal(",M,")
                if threeD, let separation = location.geoidSep { body.decimal(separation, decimals: 3) }
                body.literal(",M,,")
            }
            sentence(&body) { body in
                body.literal("RMC,")
                NMEAWriter.writeTime(milliseconds, to: &body)
                body.literal(",A,")
                NMEAWriter.writeAngle(latitude, degreeDigits: 2, positive: "N", negative: "S", to: &body)
                body.byte(UInt8(ascii: ","))
                NMEAWriter.writeAngle(longitude, degreeDigits: 3, positive: "E", negative: "W", to: &body)
                body.byte(UInt8(ascii: ","))
                if let speed = location.speed {
                    body.decimal(speed / NMEAEpochAssembler.metersPerSecondPerKnot, decimals: 4)
                }
                body.byte(UInt8(ascii: ","))
                if let track = location.track { body.decimal(track, decimals: 3) }
                body.byte(UInt8(ascii: ","))
                NMEAWriter.writeDate(milliseconds, to: &body)
                body.literal(",,,")
                body.byte(location.status == 2 ? UInt8(ascii: "D") : UInt8(ascii: "A"))
            }
        }
    }

    /// Appends a no-fix report at `time`: GGA quality 0 and RMC status `V`.
    public func appendNoFix(at time: Date?, to out: inout [UInt8]) {
        let milliseconds = time.map(NMEAWriter.milliseconds)
        ByteWriter.append(to: &out, capacity: Self.maxFixBytes) { body in
            sentence(&body) { body in
                body.literal("GGA,")
                NMEAWriter.writeTime(milliseconds, to: &body)
                body.literal(",,,,,0,00,,,M,,M,,")
            }
            sentence(&body) { body in
                body.literal("RMC,")
                NMEAWriter.writeTime(milliseconds, to: &body)
                body.literal(",V,,,,,,,")
                NMEAWriter.writeDate(milliseconds, to: &body)
                body.literal(",,,N")
            }
        }
    }

    /// The sentences for one fix as text (CRLF line ends).
    public func text(for location: Location) -> String {
        var bytes: [UInt8] = []
        append(location, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Frames one sentence: `$`, talker, the body `fill` writes, `*hh` and CRLF.
    @inline(__always)
    private func sentence(_ out: inout ByteWriter, _ fill: (inout ByteWriter) -> Void) {
        out.byte(UInt8(ascii: "$"))
        let start = out.cursor
        out.byte(talker.first)
        out.byte(talker.second)
        fill(&out)
        let sum = NMEAWriter.checksum(start, count: out.cursor - start)
        out.byte(UInt8(ascii: "*"))
        out.hexByte(sum)
        out.literal("\r\n")
    }

    /// The XOR of `count` bytes from `start`, eight at a time.
    @inline(__always)
    private static func checksum(_ start: UnsafeMutablePointer<UInt8>, count: Int) -> UInt8 {
        let bytes = UnsafeRawPointer(start)
        var wide: UInt64 = 0
        var offset = 0
        while offset + 8 <= count {
            wide ^= bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        wide ^= wide >> 32
        wide ^= wide >> 16
        wide ^= wide >> 8
        var sum = UInt8(truncatingIfNeeded: wide)
        while offset < count {
            sum ^= bytes.load(fromByteOffset: offset, as: UInt8.self)
            offset += 1
        }
        return sum
    }

    /// The fix time in whole milliseconds since 1970, as both the time and the date are written.
    private static func milliseconds(_ time: Date) -> Int {
        Int(saturating: (time.timeIntervalSince1970 * 1000).rounded())
    }

    /// `hhmmss.sss`, empty when there is no time.
    private static func writeTime(_ milliseconds: Int?, to out: inout ByteWriter) {
        guard let milliseconds else { return }
        let ofDay = UInt64(milliseconds.mod(86_400_000))
        out.digits(ofDay / 3_600_000, count: 2)
        out.digits(ofDay / 60_000 % 60, count: 2)
        out.digits(ofDay / 1000 % 60, count: 2)
        out.byte(UInt8(ascii: "."))
        out.digits(ofDay % 1000, count: 3)
    }

    /// `ddmmyy`, empty when there is no time.
    private static func writeDate(_ milliseconds: Int?, to out: inout ByteWriter) {
        guard let milliseconds else { return }
        let date = NMEADate(daysSince1970: (milliseconds - milliseconds.mod(86_400_000)) / 86_400_000)
        out.digits(UInt64(date.day), count: 2)
        out.digits(UInt64(date.month), count: 2)
        out.integer(date.year % 100, width: 2)
    }

    /// `ddmm.mmmmmmm,H` (latitude) or `dddmm.mmmmmmm,H` (longitude); at most 37 bytes.
    private static func writeAngle(
        _ value: Double, degreeDigits: Int, positive: Unicode.Scalar, negative: Unicode.Scalar,
        to out: inout ByteWriter
    ) {
        let tenMillionthsOfMinute = Int(saturating: (abs(value) * 60 * 10_000_000).rounded())
        let degrees = tenMillionthsOfMinute / 600_000_000
        let minutes = UInt64(tenMillionthsOfMinute % 600_000_000)
        out.integer(degrees, width: degreeDigits)
        out.digits(minutes / 10_000_000, count: 2)
        out.byte(UInt8(ascii: "."))
        out.digits(minutes % 10_000_000, count: 7)
        out.byte(UInt8(ascii: ","))
        out.byte(UInt8(ascii: value < 0 ? negative : positive))
    }

    /// The GGA fix quality for a gpsd status.
    package static func quality(status: Int?) -> Int {
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
