import Foundation

/// How a trip was likely made, by its average speed: trackintel's
/// `predict_transport_mode(method="simple-coarse")` with its default classes.
///
/// The speed is trackintel's `tpls_speed`: the trip's distance over its duration (not
/// ``Trip/averageSpeed``, which is capped at the fastest step). The classes are closed
/// at their lower bound, as `pd.cut(…, closed="left")`: below 15 km/h slow (walking,
/// cycling), below 100 km/h motorized (car, bus, train), from 100 km/h fast (high-speed
/// rail, a plane). A trip of no duration has no speed and no mode, as trackintel's NaN.
public enum TransportMode: String, Sendable, Hashable, CaseIterable {
    case slow = "slow_mobility"
    case motorized = "motorized_mobility"
    case fast = "fast_mobility"

    /// The upper bound of ``slow``, metres per second (15 km/h).
    public static let slowBelow = 15 / 3.6
    /// The upper bound of ``motorized``, metres per second (100 km/h).
    public static let motorizedBelow = 100 / 3.6

    /// The class of `distance` metres in `duration` seconds; nil without a duration.
    public init?(distance: Double, duration: Double) {
        guard duration > 0, distance.isFinite, distance >= 0 else { return nil }
        let speed = distance / duration
        self = speed < Self.slowBelow ? .slow : speed < Self.motorizedBelow ? .motorized : .fast
    }

    /// The class in a word for people: `slow`, `motorized`, `fast`.
    public var word: String {
        switch self {
        case .slow: "slow"
        case .motorized: "motorized"
        case .fast: "fast"
        }
    }
}
