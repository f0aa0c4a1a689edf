import Foundation

/// A trip: the stretch between two stays, made of the fixes that are in neither.
///
/// `start` is the time of its first fix, which is the end of the stay it left;
/// `end` is the start of the stay it reached (for a trip cut by a gap, or open, the
/// time of its last fix). `from` and `to` are those stays' start times (the key of a
/// stay in the timeline), nil when the trip did not leave or reach one.
public struct Trip: Sendable, Hashable, Codable {
    public var start: Date
    public var end: Date
    /// The start of the stay the trip left.
    public var from: Date?
    /// The start of the stay the trip reached.
    public var to: Date?
    /// Metres along the fixes, from the last fix of the stay it left to the first fix
    /// of the stay it reached: movement only, never the jitter inside a stay.
    public var distance: Double
    /// The fastest speed: the receiver's where it reported one, else computed from the
    /// fix before, metres per second.
    public var maxSpeed: Double
    /// How many fixes the trip holds (none of a stay's).
    public var fixes: Int
    /// Whether the trip is still going on.
    public var isOpen: Bool
    /// The names of the stays it left and reached, where known when it closed.
    public var fromName: String?
    public var toName: String?

    public init(
        start: Date, end: Date, from: Date? = nil, to: Date? = nil, distance: Double, maxSpeed: Double, fixes: Int,
        isOpen: Bool = false
    ) {
        self.start = start
        self.end = end
        self.from = from
        self.to = to
        self.distance = distance
        self.maxSpeed = maxSpeed
        self.fixes = fixes
        self.isOpen = isOpen
    }

    /// Seconds from start to end.
    public var duration: Double { end.timeIntervalSince(start) }

    /// The distance over the duration, metres per second; 0 for a trip of no duration.
    ///
    /// Never above ``maxSpeed``: each step adds at most the maximum times its time, and the
    /// steps lie within the trip's time (``MotionTracker``); `min` only takes away what
    /// rounding adds when the steps' microseconds are summed against the whole duration.
    public var averageSpeed: Double { duration > 0 ? min(distance / duration, maxSpeed) : 0 }

    /// How the trip was likely made (``TransportMode``); nil for a trip of no duration.
    public var mode: TransportMode? { TransportMode(distance: distance, duration: duration) }
}
