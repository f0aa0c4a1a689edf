import Foundation
import LocationFormats
import LocationProviders
import LocationState

/// NMEA tracks of a parked receiver, written for the tests: the position wanders as a
/// parked receiver's does (an error that drifts slowly, a few metres, with now and then a
/// multipath jump of 15 to 25 m for a few seconds, and a receiver speed of a few tenths of
/// a metre per second), optionally joined by a drive. Deterministic (a seeded generator),
/// one fix a second, GGA and RMC.
///
/// The file starts with `leadIn` seconds without a fix (before the first fix's time): a
/// gpsd that has just opened gpsfake's terminal loses what comes while it finds the
/// line's speed and framing, a few hundred sentences at the pace the tests play, and it
/// should lose those rather than the first minutes of the scenario.
package struct ParkedTrack {
    /// One stretch of the track.
    package enum Part {
        /// Parked for `seconds` at the start point (or where the last drive ended).
        case parked(seconds: Int)
        /// Driving `metres` east at `speed` m/s.
        case drive(metres: Double, speed: Double)
        /// Driving as `drive`, with 2D fixes that have no altitude and no accuracy (no
        /// HDOP): a receiver that has just got its first fix.
        case driveIn2D(metres: Double, speed: Double)
    }

    /// How many lines of NMEA ``write(name:)`` writes for the lead-in and for each fix.
    package static let linesPerFix = 2

    package let fixes: [Location]
    package let leadIn: Int

    /// The track of `parts`, from `start` at `latitude`, `longitude`.
    package init(
        _ parts: [Part], start: Date = Date(timeIntervalSince1970: 1_795_000_000), latitude: Double = 48.137,
        longitude: Double = 11.575, seed: UInt64 = 42, leadIn: Int = 600
    ) {
        self.leadIn = leadIn
        var random = SplitMix64(seed: seed)
        var fixes: [Location] = []
        var time = start
        var (east, north) = (0.0, 0.0)
        // The receiver's error, metres east and north, and what is left of a multipath jump.
        var (errorEast, errorNorth, jumpSeconds, jumpEast, jumpNorth) = (0.0, 0.0, 0, 0.0, 0.0)
        let metresPerDegree = 111_195.0
        func fix(speed: Double, track: Double, threeD: Bool = true) -> Location {
            let lat = latitude + (north + errorNorth + jumpNorth) / metresPerDegree
            let lon = longitude + (east + errorEast + jumpEast) / (metresPerDegree * cos(latitude * .pi / 180))
            guard threeD else {
                return Location(
                    time: time, mode: .twoD, status: 1, lat: lat, lon: lon, speed: speed, track: track, source: .replay)
            }
            return Location(
                time: time, mode: .threeD, status: 1, lat: lat, lon: lon, altMSL: 520, speed: speed, track: track,
                geoidSep: 47, satellitesUsed: 9, hdop: 0.9, source: .replay)
        }
        for part in parts {
            switch part {
            case .parked(let seconds):
                for _ in 0..<seconds {
                    // A drifting error: stationary deviation of about 3 m per axis.
                    errorEast = 0.98 * errorEast + random.normal() * 0.6
                    errorNorth = 0.98 * errorNorth + random.normal() * 0.6
                    if jumpSeconds > 0 {
                        jumpSeconds -= 1
                    } else if random.uniform(in: 0..<1) < 0.005 {
                        let (distance, angle) = (
                            15 + random.uniform(in: 0..<1) * 10, random.uniform(in: 0..<1) * 2 * .pi
                        )
                        (jumpSeconds, jumpEast, jumpNorth) = (
                            2 + Int(random.uniform(in: 0..<1) * 4), distance * cos(angle), distance * sin(angle)
                        )
                    }
                    if jumpSeconds == 0 { (jumpEast, jumpNorth) = (0, 0) }
                    fixes.append(fix(speed: abs(random.normal()) * 0.2, track: random.uniform(in: 0..<1) * 360))
                    time += 1
                }
            case .drive(let metres, let speed), .driveIn2D(let metres, let speed):
                (jumpEast, jumpNorth, jumpSeconds) = (0, 0, 0)
                let threeD = if case .drive = part { true } else { false }
                var covered = 0.0
                while covered < metres {
                    let step = min(speed, metres - covered)
                    covered += step
                    east += step
                    fixes.append(fix(speed: speed, track: 90, threeD: threeD))
                    time += 1
                }
            }
        }
        self.fixes = fixes
    }

    /// The track as NMEA, written to a temporary file named after `name`.
    package func write(name: String) throws -> URL {
        let writer = NMEAWriter()
        var out: [UInt8] = []
        if let first = fixes.first?.time {
            for second in stride(from: leadIn, to: 0, by: -1) {
                writer.appendNoFix(at: first.addingTimeInterval(-Double(second)), to: &out)
            }
        }
        for fix in fixes { writer.append(fix, to: &out) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locationd-\(name)-\(getpid())-\(UUID().uuidString.prefix(8)).nmea")
        try Data(out).write(to: url)
        return url
    }
}
