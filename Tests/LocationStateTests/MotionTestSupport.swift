import Foundation
import LocationState

/// Fixes placed in metres around a point, for the motion tests.
struct MotionTrack {
    static let origin = (latitude: 47.37, longitude: 8.54)
    static let t0 = Date(timeIntervalSince1970: 1_795_000_000)
    /// trackintel's sphere: metres per degree of latitude.
    static let metresPerDegree = 6_371_000.0 * .pi / 180

    /// A fix `north` and `east` metres from the origin, `seconds` after t0.
    static func fix(
        _ seconds: Double, north: Double = 0, east: Double = 0, speed: Double? = nil, mode: FixMode = .threeD
    ) -> Location {
        Location(
            time: t0.addingTimeInterval(seconds), mode: mode,
            lat: origin.latitude + north / metresPerDegree,
            lon: origin.longitude + east / (metresPerDegree * cos(origin.latitude * .pi / 180)),
            speed: speed, source: .replay)
    }

    /// The time `seconds` after t0.
    static func time(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    /// Feeds `fixes` to `tracker`; returns every event, in order.
    static func feed(_ tracker: inout MotionTracker, _ fixes: [Location]) -> [TimelineEvent] {
        fixes.flatMap { tracker.ingest($0) }
    }

    /// The closed stays among `events`.
    static func stays(_ events: [TimelineEvent]) -> [Stay] {
        events.compactMap { if case .stayClosed(let stay) = $0 { stay } else { nil } }
    }

    /// The closed trips among `events`.
    static func trips(_ events: [TimelineEvent]) -> [Trip] {
        events.compactMap { if case .tripClosed(let trip) = $0 { trip } else { nil } }
    }

    /// Each event by kind: `stay`, `trip`, `drop`, or the motion's name.
    static func kinds(_ events: [TimelineEvent]) -> [String] {
        events.map { event in
            switch event {
            case .stayClosed: "stay"
            case .tripClosed: "trip"
            case .stayDropped: "drop"
            case .motion(let motion): motion.name
            }
        }
    }

    /// The motion changes among `events`, by name.
    static func motions(_ events: [TimelineEvent]) -> [String] {
        events.compactMap { if case .motion(let motion) = $0 { motion.name } else { nil } }
    }
}

/// A parked receiver's noise: a slowly wandering offset (first-order Gauss-Markov,
/// a few metres, correlated over a minute) plus a rare multipath jump of tens of metres.
struct ReceiverJitter {
    private var random: SplitMix
    private var north = 0.0
    private var east = 0.0
    private let outliers: Bool

    init(seed: UInt64, outliers: Bool = true) {
        random = SplitMix(seed: seed)
        self.outliers = outliers
    }

    /// The next offset, north and east in metres, one second after the last.
    mutating func next() -> (north: Double, east: Double) {
        let keep = exp(-1.0 / 60)
        let sigma = 3.0 * (1 - keep * keep).squareRoot()
        north = keep * north + sigma * random.gaussian()
        east = keep * east + sigma * random.gaussian()
        if outliers, random.uniform() < 0.002 {
            return (north + 25 * random.gaussian(), east + 25 * random.gaussian())
        }
        return (north, east)
    }
}

/// A small seeded generator, so that a failing track can be made again.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in 0..<1.
    mutating func uniform() -> Double { Double(next() >> 11) / Double(1 << 53) }

    /// Standard normal (Box-Muller).
    mutating func gaussian() -> Double {
        let u = max(uniform(), .leastNonzeroMagnitude)
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * uniform())
    }
}
