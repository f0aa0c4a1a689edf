/// The receiver's fix dimension, numbered as gpsd's TPV `mode` field.
public enum FixMode: Int, Sendable, Codable, Comparable, CaseIterable {
    /// Nothing seen from the receiver yet.
    case unknown = 0
    /// The receiver reports that it has no fix.
    case noFix = 1
    /// Latitude and longitude only.
    case twoD = 2
    /// Latitude, longitude and altitude.
    case threeD = 3

    /// Whether the mode carries a position (2D or 3D).
    public var hasPosition: Bool { self >= .twoD }

    public static func < (lhs: FixMode, rhs: FixMode) -> Bool { lhs.rawValue < rhs.rawValue }
}
