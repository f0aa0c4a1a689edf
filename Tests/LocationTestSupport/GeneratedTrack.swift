import Foundation

/// A GPX track made up from a seed: stays with a parked receiver's jitter, drives, walks,
/// gaps, and stays cut right at the thresholds; for comparing locationd with trackintel.
package struct GeneratedTrack {
    package struct Point {
        package var time: Double
        package var latitude: Double
        package var longitude: Double
    }

    package private(set) var points: [Point] = []
    private var random: Xorshift
    private let origin: (latitude: Double, longitude: Double)
    private var time: Double
    private var north = 0.0
    private var east = 0.0
    /// The jitter's wandering offset, metres.
    private var drift = (north: 0.0, east: 0.0)
    /// Seconds between fixes: fixed, or random when 0.
    private let interval: Double

    /// Metres per degree of latitude (a sphere is enough for making tracks up).
    package static let metresPerDegree = 6_371_000.0 * .pi / 180

    package init(seed: UInt64, start: Double = 1_795_000_000) {
        random = Xorshift(seed: seed)
        let origins = [(47.37, 8.54), (-33.87, 151.21), (64.13, -21.9), (0.5, -179.99)]
        origin = origins[Int(seed % UInt64(origins.count))]
        time = start
        interval = [1, 2, 5, 0][Int(seed / 4 % 4)]
    }

    /// A track of `segments` random pieces for the thresholds given.
    package static func random(seed: UInt64, segments: Int, stayDistance: Double, stayDuration: Double, stayGap: Double)
        -> GeneratedTrack
    {
        var track = GeneratedTrack(seed: seed)
        for _ in 0..<segments {
            switch track.random.below(10) {
            case 0, 1, 2: track.stay(seconds: track.random.uniform(30, 2400))
            case 3: track.stay(seconds: stayDuration + track.random.uniform(-12, 12))
            case 4, 5: track.move(metres: track.random.uniform(500, 10_000), speed: track.random.uniform(8, 30))
            case 6: track.move(metres: track.random.uniform(50, 800), speed: track.random.uniform(1, 1.8))
            case 7: track.gap(seconds: track.random.uniform(0.5, 2.5) * stayGap)
            case 8: track.hop(metres: stayDistance * track.random.uniform(0.9, 1.1))
            default: track.exactStay(duration: stayDuration, leavingBy: stayDistance * 2)
            }
        }
        return track
    }

    /// Parked: the receiver's noise, a few metres wandering over a minute, a rare jump of tens of metres.
    package mutating func stay(seconds: Double) {
        let end = time + seconds
        while time < end {
            let seconds = step
            let keep = exp(-seconds / 60)
            let sigma = 3 * (1 - keep * keep).squareRoot()
            drift = (keep * drift.north + sigma * random.gaussian(), keep * drift.east + sigma * random.gaussian())
            if random.uniform(0, 1) < 0.003 {
                add(
                    north: north + drift.north + 20 * random.gaussian(),
                    east: east + drift.east + 20 * random.gaussian())
            } else {
                add(north: north + drift.north, east: east + drift.east)
            }
            time += seconds
        }
    }

    /// A straight line at `speed` in a random direction, with two metres of noise.
    package mutating func move(metres: Double, speed: Double) {
        let heading = random.uniform(0, 2 * .pi)
        var travelled = 0.0
        while travelled < metres {
            let seconds = step
            travelled += speed * seconds
            north += cos(heading) * speed * seconds
            east += sin(heading) * speed * seconds
            add(north: north + 2 * random.gaussian(), east: east + 2 * random.gaussian())
            time += seconds
        }
    }

    /// No fix for `seconds`.
    package mutating func gap(seconds: Double) { time += seconds }

    /// A jump of about the stay distance between two fixes.
    package mutating func hop(metres: Double) {
        north += metres
        add(north: north, east: east)
        time += step
    }

    /// Fixes every 10 s at one point, then one `leavingBy` metres away exactly `duration` after the first.
    package mutating func exactStay(duration: Double, leavingBy metres: Double) {
        time = time.rounded(.up)
        let first = time
        while time < first + duration {
            add(north: north, east: east)
            time += 10
        }
        time = first + duration
        north += metres
        add(north: north, east: east)
        time += 10
    }

    /// One fix at the current place dated `time` (seconds since 1970) whatever the track's
    /// time: a receiver's misdated epoch. The track's time runs on as if it were not there.
    package mutating func misdated(_ time: Double) {
        let now = self.time
        self.time = time
        add(north: north, east: east)
        self.time = now
    }

    private var step: Double {
        mutating get { interval > 0 ? interval : (random.uniform(1, 10) * 1000).rounded() / 1000 }
    }

    private mutating func add(north: Double, east: Double) {
        let latitude = origin.latitude + north / Self.metresPerDegree
        var longitude =
            origin.longitude + east / (Self.metresPerDegree * cos(origin.latitude * .pi / 180))
        if longitude < -180 { longitude += 360 } else if longitude >= 180 { longitude -= 360 }
        points.append(Point(time: (time * 1000).rounded() / 1000, latitude: latitude, longitude: longitude))
    }

    /// The track as a GPX 1.1 document: one segment, times to the millisecond, 8 decimals.
    package var gpx: String {
        var text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="locationd tests" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><trkseg>

            """
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for point in points {
            text += String(format: "<trkpt lat=\"%.8f\" lon=\"%.8f\"><time>", point.latitude, point.longitude)
            text += formatter.string(from: Date(timeIntervalSince1970: point.time)) + "</time></trkpt>\n"
        }
        return text + "</trkseg></trk>\n</gpx>\n"
    }
}

/// A small seeded generator (xorshift64*), so that a failing track can be made again.
package struct Xorshift {
    private var state: UInt64
    package init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    package mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    package mutating func uniform(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }

    package mutating func below(_ count: Int) -> Int { Int(next() % UInt64(count)) }

    package mutating func gaussian() -> Double {
        (-2 * log(max(uniform(0, 1), .leastNonzeroMagnitude))).squareRoot() * cos(uniform(0, 2 * .pi))
    }
}
