import Foundation
import LocationFormats
import LocationState

/// The sample tracks: a walk, a drive across midnight, a fix loss, the antimeridian, the North Pole, corruption,
/// a commute with a stop.
package enum ReplaySampleTracks {
    /// Each file name with its content.
    package static func all() -> [(String, [UInt8])] {
        [
            ("walk.nmea", walk()), ("drive.nmea", drive()), ("fix-loss.nmea", fixLoss()),
            ("antimeridian.nmea", antimeridian()), ("north-pole.nmea", northPole()), ("corrupt.nmea", corrupt()),
            ("commute.nmea", commute()),
        ]
    }

    /// One step of a synthetic trajectory.
    package struct Step {
        var seconds: Int
        var speed: Double
        var course: Double
    }

    /// Metres per degree of latitude (spherical approximation used only to lay out the routes).
    package static let metersPerDegree = 111_320.0

    /// Fixes at 1 Hz from `start` (Unix seconds), moving at `speed(t)` m/s on course `course(t)` degrees.
    package static func route(
        start: Int, latitude: Double, longitude: Double, count: Int, altitude: (Int) -> Double,
        speed: (Int) -> Double, course: (Int) -> Double, satellites: (Int) -> Int = { 8 + $0 % 3 }
    ) -> [Location] {
        var lat = latitude
        var lon = longitude
        var fixes: [Location] = []
        for second in 0..<count {
            let v = speed(second)
            let c = course(second)
            fixes.append(
                Location(
                    time: Date(timeIntervalSince1970: Double(start + second)), mode: .threeD, status: 1, lat: lat,
                    lon: lon, altMSL: altitude(second), speed: v, track: c, geoidSep: 40.5,
                    satellitesUsed: satellites(second), hdop: 0.9, source: .replay))
            let radians = c * .pi / 180
            lat += v * cos(radians) / metersPerDegree
            lon += v * sin(radians) / (metersPerDegree * cos(lat * .pi / 180))
            if lon > 180 { lon -= 360 }
            if lon < -180 { lon += 360 }
        }
        return fixes
    }

    package static func write(_ fixes: [Location], header: String) -> [UInt8] {
        var out = Array(header.utf8)
        let writer = NMEAWriter()
        for fix in fixes {
            if fix.hasPosition {
                writer.append(fix, to: &out)
            } else {
                writer.appendNoFix(at: fix.time, to: &out)
            }
        }
        return out
    }

    /// 300 s walking through Berlin's Tiergarten at 1.4 m/s, 2026-05-14 09:00:00Z.
    package static func walkFixes() -> [Location] {
        route(
            start: 1_778_749_200, latitude: 52.514_5, longitude: 13.350_1, count: 300,
            altitude: { 35 + 2 * sin(Double($0) / 40) }, speed: { 1.4 + 0.1 * sin(Double($0) / 15) },
            course: { (80 + Double($0) * 0.6).truncatingRemainder(dividingBy: 360) })
    }

    package static func walk() -> [UInt8] {
        write(walkFixes(), header: "# locationd sample track: a 300 s walk in Berlin (synthetic)\n")
    }

    /// 600 s driving out of Munich across midnight into a new month, 2026-06-30 23:55:00Z.
    package static func drive() -> [UInt8] {
        let fixes = route(
            start: 1_782_863_700, latitude: 48.137_1, longitude: 11.575_4, count: 600,
            altitude: { 520 + Double($0) * 0.05 }, speed: { min(25, Double($0) * 0.5) },
            course: { $0 < 200 ? 45 : $0 < 400 ? 45 + Double($0 - 200) * 0.45 : 135 })
        return write(fixes, header: "# locationd sample track: a 600 s drive from Munich across midnight (synthetic)\n")
    }

    /// 240 s in Sydney at 20 m/s: 100 s of fixes, 40 s without (a tunnel), 100 s of fixes, 2026-02-03 03:00:00Z.
    package static func fixLoss() -> [UInt8] {
        var fixes = route(
            start: 1_770_087_600, latitude: -33.868_8, longitude: 151.209_3, count: 240, altitude: { _ in 25 },
            speed: { _ in 20 }, course: { _ in 200 })
        for second in 100..<140 {
            fixes[second] = Location(time: fixes[second].time, mode: .noFix, source: .replay)
        }
        return write(fixes, header: "# locationd sample track: a 40 s fix loss in the middle (synthetic)\n")
    }

    /// 200 s sailing east across the antimeridian near Fiji at 10 m/s, 2026-08-01 00:00:00Z.
    package static func antimeridian() -> [UInt8] {
        let fixes = route(
            start: 1_785_542_400, latitude: -16.8, longitude: 179.991, count: 200, altitude: { _ in 2 },
            speed: { _ in 10 }, course: { _ in 90 })
        return write(fixes, header: "# locationd sample track: crossing 180 degrees eastwards (synthetic)\n")
    }

    /// 400 s walking north across the North Pole at 2 m/s, 2026-04-10 12:00:00Z.
    package static func northPole() -> [UInt8] {
        let start = 1_775_822_400
        var fixes: [Location] = []
        for second in 0..<400 {
            // Along the 0° meridian to the pole, then down the 180° meridian.
            let colatitude = 0.005 - Double(second) * 2 / metersPerDegree
            let crossed = colatitude < 0
            fixes.append(
                Location(
                    time: Date(timeIntervalSince1970: Double(start + second)), mode: .threeD, status: 1,
                    lat: 90 - abs(colatitude), lon: crossed ? 180 : 0, altMSL: 2800, speed: 2, track: crossed ? 180 : 0,
                    geoidSep: 14.9, satellitesUsed: 11, hdop: 0.7, source: .replay))
        }
        return write(fixes, header: "# locationd sample track: walking across the North Pole (synthetic)\n")
    }

    /// The first 120 s of the walk with damage: bad checksums, truncation, binary noise,
    /// an over-long line, proprietary and unknown sentences, comments, blank lines, LF endings.
    package static func corrupt() -> [UInt8] {
        var out = Array("# locationd sample track: the walk's first 120 s, damaged on purpose (synthetic)\n".utf8)
        let writer = NMEAWriter()
        for (index, fix) in walkFixes().prefix(120).enumerated() {
            var epoch: [UInt8] = []
            writer.append(fix, to: &epoch)
            var lines = epoch.split(separator: 10, omittingEmptySubsequences: true).map(Array.init)
            switch index % 10 {
            case 3:
                // A bit flip in the GGA: its checksum no longer matches.
                lines[0][20] ^= 0x01
            case 5:
                lines.insert(framed("PGRME,15.0,M,45.0,M,25.0,M"), at: 1)
                lines.insert(framed("GPTXT,01,01,02,ANTSTATUS=OK"), at: 2)
            case 7:
                lines.insert((0..<48).map { UInt8(truncatingIfNeeded: ($0 * 37 + index) % 256 | 0x80) }, at: 0)
            case 8:
                // The RMC is cut short before its checksum: too few fields to use.
                lines[1] = Array(lines[1].prefix(30))
            case 9:
                lines = lines.map { $0.last == 13 ? Array($0.dropLast()) : $0 }
                lines.insert([], at: 1)
            default: break
            }
            if index == 60 { lines.insert(Array(repeating: UInt8(ascii: "G"), count: 2000), at: 0) }
            if index == 90 { lines.insert(Array("# a comment in the middle\r".utf8), at: 0) }
            for line in lines {
                out.append(contentsOf: line)
                out.append(10)
            }
        }
        return out
    }

    /// `$BODY*hh\r` with a correct checksum.
    package static func framed(_ body: String) -> [UInt8] {
        Array("$\(body)*\(NMEAChecksum.hex(body))\r".utf8)
    }
}
