/// How many fixes ``MotionTracker`` ignored, by reason.
public struct IgnoredFixes: Sendable, Hashable, Codable {
    /// No 2D or 3D fix, or no valid latitude and longitude.
    public var withoutPosition = 0
    /// No time.
    public var withoutTime = 0
    /// A time not after the last fix used: repeated or going backwards.
    public var outOfOrder = 0
    /// Farther from the last fix used than the maximum speed allows.
    public var jumps = 0

    public init() {}

    public var total: Int { withoutPosition + withoutTime + outOfOrder + jumps }
}
