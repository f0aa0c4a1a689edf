import LocationState

/// The thresholds of stays and trips, from `locationd run`'s configuration and `replay`'s flags.
///
/// The first three are trackintel's `generate_staypoints(method="sliding")` parameters,
/// in metres and seconds (trackintel takes minutes): `dist_threshold`, `time_threshold`
/// and `gap_threshold`. Keys (the daemon configuration delegates them here):
/// - `stay-distance = METRES`: how far from a stay's first fix a fix may be and still
///   belong to the stay (default 100);
/// - `stay-duration = SECONDS`: how long the device must stay to make a stay (default 300);
/// - `stay-gap = SECONDS`: a longer time between two fixes ends a stay candidate (default 900);
/// - `max-speed = M/S`: a fix farther from the one before than this speed allows (plus
///   the receiver's noise, ``MotionConfiguration/jumpTolerance``) is ignored (default 100).
public struct MotionConfiguration: Sendable, Hashable, Codable {
    public var stayDistance: Double
    public var stayDuration: Double
    public var stayGap: Double
    public var maxSpeed: Double

    /// Metres a fix may exceed `maxSpeed` × elapsed time by without counting as a jump:
    /// a parked receiver's noise, which at 10 Hz would otherwise look like tens of m/s.
    public static let jumpTolerance = 30.0

    /// The accepted values of each setting: above 0, and no more than a value that still means something.
    public static let limits: [String: ClosedRange<Double>] = [
        "stay-distance": 0...100_000,
        "stay-duration": 0...(30 * 86_400),
        "stay-gap": 0...(365 * 86_400),
        "max-speed": 0...100_000,
    ]

    public init(stayDistance: Double = 100, stayDuration: Double = 300, stayGap: Double = 900, maxSpeed: Double = 100) {
        self.stayDistance = stayDistance
        self.stayDuration = stayDuration
        self.stayGap = stayGap
        self.maxSpeed = maxSpeed
    }

    /// Applies one `key = value` setting if the key is one of these; returns false for
    /// another key. `origin` names where the setting came from, for errors.
    public mutating func apply(key: String, value: String, origin: String) throws(LocationError) -> Bool {
        guard let limit = Self.limits[key] else { return false }
        let unit = key == "stay-distance" ? "metres" : key == "max-speed" ? "metres per second" : "seconds"
        let text = unit == "seconds" && value.hasSuffix("s") ? String(value.dropLast()) : value
        guard let number = Double(text), number.isFinite, number > limit.lowerBound, number <= limit.upperBound
        else {
            throw .usage(
                "\(origin): \(key) must be a number of \(unit) above 0 and up to \(Int(limit.upperBound)), not '\(value)'"
            )
        }
        switch key {
        case "stay-distance": stayDistance = number
        case "stay-duration": stayDuration = number
        case "stay-gap": stayGap = number
        default: maxSpeed = number
        }
        return true
    }
}
