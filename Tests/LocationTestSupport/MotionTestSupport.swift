import Foundation
import LocationProviders
import LocationState
import LocationTimeline

/// Fixes placed in metres around a point, for the motion tests.
package struct MotionTrack {
    package static let origin = (latitude: 47.37, longitude: 8.54)
    package static let t0 = Date(timeIntervalSince1970: 1_795_000_000)
    /// trackintel's sphere: metres per degree of latitude.
    package static let metresPerDegree = 6_371_000.0 * .pi / 180

    /// A fix `north` and `east` metres from the origin, `seconds` after t0.
    package static func fix(
        _ seconds: Double, north: Double = 0, east: Double = 0, speed: Double? = nil, mode: FixMode = .threeD
    ) -> Location {
        Location(
            time: t0.addingTimeInterval(seconds), mode: mode,
            lat: origin.latitude + north / metresPerDegree,
            lon: origin.longitude + east / (metresPerDegree * cos(origin.latitude * .pi / 180)),
            speed: speed, source: .replay)
    }

    /// The time `seconds` after t0.
    package static func time(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    /// Feeds `fixes` to `tracker`; returns every event, in order.
    package static func feed(_ tracker: inout MotionTracker, _ fixes: [Location]) -> [TimelineEvent] {
        fixes.flatMap { tracker.ingest($0) }
    }

    /// The closed stays among `events`.
    package static func stays(_ events: [TimelineEvent]) -> [Stay] {
        events.compactMap { if case .stayClosed(let stay) = $0 { stay } else { nil } }
    }

    /// The closed trips among `events`.
    package static func trips(_ events: [TimelineEvent]) -> [Trip] {
        events.compactMap { if case .tripClosed(let trip) = $0 { trip } else { nil } }
    }

    /// Each event by kind: `stay`, `trip`, `drop`, or the motion's name.
    package static func kinds(_ events: [TimelineEvent]) -> [String] {
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
    package static func motions(_ events: [TimelineEvent]) -> [String] {
        events.compactMap { if case .motion(let motion) = $0 { motion.name } else { nil } }
    }
}

/// A parked receiver's noise: a slowly wandering offset (first-order Gauss-Markov,
/// a few metres, correlated over a minute) plus a rare multipath jump of tens of metres.
package struct ReceiverJitter {
    private var random: SplitMix64
    private var north = 0.0
    private var east = 0.0
    private let outliers: Bool

    package init(seed: UInt64, outliers: Bool = true) {
        random = SplitMix64(seed: seed)
        self.outliers = outliers
    }

    /// The next offset, north and east in metres, one second after the last.
    package mutating func next() -> (north: Double, east: Double) {
        let keep = exp(-1.0 / 60)
        let sigma = 3.0 * (1 - keep * keep).squareRoot()
        north = keep * north + sigma * random.normal()
        east = keep * east + sigma * random.normal()
        if outliers, random.uniform(in: 0..<1) < 0.002 {
            return (north + 25 * random.normal(), east + 25 * random.normal())
        }
        return (north, east)
    }
}
