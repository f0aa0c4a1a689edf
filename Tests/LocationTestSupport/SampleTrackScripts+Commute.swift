import Foundation
import LocationProviders
import LocationState

extension ReplaySampleTracks {
    /// The commute and what its generator knows about it, for the tests to hold a replay against.
    package struct Commute {
        package let fixes: [Location]
        /// Where the car stood during the stop, without the receiver's error.
        package let stop: (latitude: Double, longitude: Double)
        /// The times of the first and the last fix of the stop.
        package let parked: ClosedRange<Date>
        /// How many fixes the stop holds.
        package let parkedFixes: Int
        /// The metres each drive covered, without the receiver's error.
        package let drives: [Double]
    }

    /// The commute's seed: the same track, byte for byte, every time.
    package static let commuteSeed: UInt64 = 2026

    /// A commute in Zürich, 2026-09-15 06:50:00Z: 185 s of driving (up to 14 m/s, gently
    /// curving), a stop of 600 s, 182 s of driving on, and 330 s parked at the end. The
    /// receiver's error drifts by a few metres throughout (a first-order Gauss-Markov
    /// process, about 3 m per axis, correlated over a minute); while parked, a multipath
    /// jump of 15 to 25 m for 2 to 5 s comes now and then, and the receiver reports a
    /// speed of a few tenths of a metre per second in any direction.
    ///
    /// The drives' lengths are chosen so that, with the default thresholds, the stay
    /// candidate that holds each stop begins at most 10 s before it (trackintel's rule
    /// measures from a candidate's first fix, and one that began on the approach, near the
    /// stay distance, would be cut by the first multipath jump), whichever of the first
    /// three fixes a reader starts with.
    package static func commuteTrack() -> Commute {
        var random = SplitMix64(seed: commuteSeed)
        let start = 1_789_455_000.0
        var (latitude, longitude) = (47.378_2, 8.540_1)
        var second = 0
        var fixes: [Location] = []
        var (errorEast, errorNorth) = (0.0, 0.0)
        var (jumpSeconds, jumpEast, jumpNorth) = (0, 0.0, 0.0)
        var drives: [Double] = []
        func drift() {
            errorEast = 0.98 * errorEast + random.normal() * 0.6
            errorNorth = 0.98 * errorNorth + random.normal() * 0.6
        }
        func fix(speed: Double, track: Double, east: Double = 0, north: Double = 0) -> Location {
            let metresEast = metersPerDegree * cos(latitude * .pi / 180)
            return Location(
                time: Date(timeIntervalSince1970: start + Double(second)), mode: .threeD, status: 1,
                lat: latitude + (errorNorth + north) / metersPerDegree,
                lon: longitude + (errorEast + east) / metresEast, altMSL: 410 + errorNorth / 3, speed: speed,
                track: track.truncatingRemainder(dividingBy: 360), geoidSep: 47.4, satellitesUsed: 9 + second / 97 % 3,
                hdop: 0.9, source: .replay)
        }
        func drive(seconds: Int, speed cruise: Double, course: Double) {
            var covered = 0.0
            for step in 0..<seconds {
                drift()
                // 2 m/s² away from a standstill and into the next one.
                let speed = min(cruise, 2 * Double(step), 2 * Double(seconds - step))
                let heading = course + 25 * sin(Double(step) / 30)
                fixes.append(fix(speed: speed, track: heading))
                let radians = heading * .pi / 180
                latitude += speed * cos(radians) / metersPerDegree
                longitude += speed * sin(radians) / (metersPerDegree * cos(latitude * .pi / 180))
                covered += speed
                second += 1
            }
            drives.append(covered)
        }
        func park(seconds: Int) {
            for _ in 0..<seconds {
                drift()
                if jumpSeconds > 0 {
                    jumpSeconds -= 1
                } else if random.uniform(in: 0..<1) < 0.005 {
                    let (distance, angle) = (15 + random.uniform(in: 0..<1) * 10, random.uniform(in: 0..<1) * 2 * .pi)
                    (jumpSeconds, jumpEast, jumpNorth) = (
                        2 + Int(random.uniform(in: 0..<1) * 4), distance * cos(angle), distance * sin(angle)
                    )
                }
                if jumpSeconds == 0 { (jumpEast, jumpNorth) = (0, 0) }
                fixes.append(
                    fix(
                        speed: abs(random.normal()) * 0.2, track: random.uniform(in: 0..<1) * 360, east: jumpEast,
                        north: jumpNorth)
                )
                second += 1
            }
        }
        drive(seconds: 185, speed: 14, course: 60)
        let stop = (latitude, longitude)
        let parkedFrom = Date(timeIntervalSince1970: start + Double(second))
        park(seconds: 600)
        let parked = parkedFrom...Date(timeIntervalSince1970: start + Double(second - 1))
        drive(seconds: 182, speed: 14, course: 130)
        park(seconds: 330)
        return Commute(fixes: fixes, stop: stop, parked: parked, parkedFixes: 600, drives: drives)
    }

    package static func commute() -> [UInt8] {
        write(
            commuteTrack().fixes,
            header:
                "# locationd sample track: a commute in Zurich with a 10 min stop, seed \(commuteSeed) (synthetic)\n")
    }
}
