/// How many fixes ``MotionTracker`` ignored, by reason, and how often the fixes' clock was
/// found to have gone back for good.
public struct IgnoredFixes: Sendable, Hashable, Codable {
    /// No 2D or 3D fix, or no valid latitude and longitude.
    public var withoutPosition = 0
    /// No time.
    public var withoutTime = 0
    /// A time not after the last fix used, by no more than the stay gap: repeated or late.
    public var outOfOrder = 0
    /// A time more than the stay gap away from the fixes around it: ahead of the fix after
    /// it (a receiver's misdated epoch, a year 2099), or behind the last fix used before
    /// enough fixes agree that the clock went back (see ``timeResets``).
    public var misdated = 0
    /// Farther from the last fix used than the maximum speed allows.
    public var jumps = 0
    /// Times the fixes' clock went back by more than the stay gap and stayed there (a GPS
    /// week rollover, a replay starting over): the tracker started over on the new times.
    /// Not an ignored fix, so not in ``total``.
    public var timeResets = 0

    public init() {}

    /// Reads a state saved before a count existed as 0 for it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int { try container.decodeIfPresent(Int.self, forKey: key) ?? 0 }
        withoutPosition = try count(.withoutPosition)
        withoutTime = try count(.withoutTime)
        outOfOrder = try count(.outOfOrder)
        misdated = try count(.misdated)
        jumps = try count(.jumps)
        timeResets = try count(.timeResets)
    }

    public var total: Int { withoutPosition + withoutTime + outOfOrder + misdated + jumps }
}
