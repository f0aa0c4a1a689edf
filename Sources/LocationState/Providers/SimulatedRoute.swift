import Foundation
import LocationState

/// A deterministic synthetic drive: the same seed and settings give the same fixes.
///
/// The vehicle holds a cruising speed with small variations, turns smoothly
/// (the turn rate wanders, and now and then it takes a corner of 45° to 120°),
/// climbs and descends gently, and reports accuracies that wander in a
/// receiver-like range (`eph` 2.5–15 m, `epv` about 1.6 × `eph`). Fixes are 3D,
/// marked `source: .simulated` and gpsd `status` 8 (simulated).
public struct SimulatedRoute: Sendable {
    /// Largest sideways acceleration in a turn, m/s² (a calm driver).
    package static let maximumLateralAcceleration = 2.5

    /// Time between fixes.
    public let interval: Duration
    /// The cruising speed the route varies around, metres per second.
    public let cruisingSpeed: Double
    private var random: SplitMix64
    private var lat: Double
    private var lon: Double
    private var altitude: Double
    private var course: Double
    private var speed: Double
    private var climb = 0.0
    /// Turn rate, degrees per second, positive clockwise.
    private var turnRate = 0.0
    /// Degrees of a corner still to turn; its sign gives the direction.
    private var cornerLeft = 0.0
    private var eph: Double
    private var time: Date

    /// - Parameters:
    ///   - seed: the random seed; equal seeds give equal routes.
    ///   - lat: start latitude, degrees.
    ///   - lon: start longitude, degrees.
    ///   - altitude: start altitude above the ellipsoid, metres.
    ///   - speed: cruising speed, metres per second (default 13.9, 50 km/h).
    ///   - interval: time between fixes (default 1 s).
    ///   - start: UTC time of the first fix.
    public init(
        seed: UInt64, lat: Double = 48.1173, lon: Double = 11.5167, altitude: Double = 520,
        speed: Double = 13.9, interval: Duration = .seconds(1), start: Date
    ) {
        precondition(speed >= 0 && interval > .zero, "a route needs speed >= 0 and interval > 0")
        self.random = SplitMix64(seed: seed)
        self.lat = lat
        self.lon = lon
        self.altitude = altitude
        self.cruisingSpeed = speed
        self.speed = speed
        self.interval = interval
        self.time = start
        self.course = random.uniform(in: 0..<360)
        self.eph = random.uniform(in: 3..<8)
    }

    /// The fix at the current position, then one step along the route.
    public mutating func next() -> Location {
        let fix = Location(
            time: time, mode: .threeD, status: 8, lat: lat, lon: lon,
            altHAE: altitude, speed: speed, track: course, climb: climb,
            eph: eph, epv: eph * 1.6, eps: 0.2 + eph * 0.02, epc: 0.3 + eph * 0.04,
            epx: eph / 2.0.squareRoot(), epy: eph / 2.0.squareRoot(),
            satellitesUsed: Int((16 - eph * 0.6).rounded()), hdop: (eph / 5 * 10).rounded() / 10,
            source: .simulated)
        step()
        return fix
    }

    private mutating func step() {
        let seconds = interval.inSeconds
        // Travel at the speed and course the fix just reported, then change them.
        move(distance: speed * seconds)
        time += seconds

        // Speed: wanders within ±15 % of cruising, pulled back towards it.
        speed += (cruisingSpeed - speed) * 0.1 * seconds + random.normal() * cruisingSpeed * 0.02 * seconds.squareRoot()
        speed = min(max(speed, cruisingSpeed * 0.85), cruisingSpeed * 1.15)

        // Course: a wandering turn rate, now and then a corner; bounded by the
        // turn rate a car can take at this speed.
        let maximumTurnRate = speed > 0.5 ? min(30, Self.maximumLateralAcceleration / speed * 180 / .pi) : 30
        if cornerLeft == 0, random.uniform(in: 0..<1) < 0.02 * seconds {
            cornerLeft = random.uniform(in: 45..<120) * (random.uniform(in: 0..<1) < 0.5 ? -1 : 1)
        }
        if cornerLeft != 0 {
            let turn = min(abs(cornerLeft), maximumTurnRate * seconds)
            turnRate = (cornerLeft > 0 ? turn : -turn) / seconds
            cornerLeft = cornerLeft > 0 ? cornerLeft - turn : cornerLeft + turn
        } else {
            turnRate = turnRate * 0.8 + random.normal() * 1.5 * seconds.squareRoot()
            turnRate = min(max(turnRate, -maximumTurnRate), maximumTurnRate)
        }
        course = (course + turnRate * seconds).truncatingRemainder(dividingBy: 360)
        if course < 0 { course += 360 }

        // Altitude: a climb rate that wanders within ±1.5 m/s.
        climb = min(max(climb * 0.9 + random.normal() * 0.2 * seconds.squareRoot(), -1.5), 1.5)
        altitude += climb * seconds

        // Accuracy: wanders between 2.5 and 15 m.
        eph = min(max(eph + random.normal() * 0.3 * seconds.squareRoot(), 2.5), 15)

    }

    /// Moves `distance` metres along `course` on a sphere (great circle).
    private mutating func move(distance: Double) {
        let angle = distance / Geodesy.meanRadius
        let bearing = course * .pi / 180
        let phi1 = lat * .pi / 180
        let lambda1 = lon * .pi / 180
        let phi2 = asin(sin(phi1) * cos(angle) + cos(phi1) * sin(angle) * cos(bearing))
        let lambda2 = lambda1 + atan2(sin(bearing) * sin(angle) * cos(phi1), cos(angle) - sin(phi1) * sin(phi2))
        lat = phi2 * 180 / .pi
        lon = (lambda2 * 180 / .pi + 540).truncatingRemainder(dividingBy: 360) - 180
    }
}

/// SplitMix64: a small, fast, seedable generator whose sequence is the same on every platform.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in `range`, from the top 53 bits.
    public mutating func uniform(in range: Range<Double>) -> Double {
        range.lowerBound + Double(next() >> 11) / Double(1 << 53) * (range.upperBound - range.lowerBound)
    }

    /// A standard normal variate (Box–Muller).
    public mutating func normal() -> Double {
        let u1 = max(uniform(in: 0..<1), .leastNormalMagnitude)
        let u2 = uniform(in: 0..<1)
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }
}
