import Foundation

/// The trip under way: what its fixes so far add up to.
package struct TripProgress: Sendable, Hashable, Codable {
    package let start: Date
    /// The start of the stay it left.
    package let from: Date?
    /// The time of its latest fix.
    private(set) var end: Date
    package var distance: Double
    private(set) var maxSpeed = 0.0
    private(set) var fixes = 0

    package init(start: Date, from: Date?, distance: Double) {
        self.start = start
        self.from = from
        self.end = start
        self.distance = distance
    }

    /// Takes a stay candidate's fixes as the trip's: the candidate ended before it lasted long enough.
    package mutating func absorb(_ candidate: StayCandidate) {
        end = candidate.end
        distance += candidate.path
        fixes += candidate.fixes
        maxSpeed = max(maxSpeed, candidate.maxSpeed)
    }

    /// Adds the step into the fix that ended a candidate: `travel` metres in `elapsed`
    /// seconds, whose speed the maximum takes, so that the average is never above it.
    package mutating func add(travel: Double, elapsed: Double) {
        distance += travel
        maxSpeed = max(maxSpeed, travel / elapsed)
    }

    /// The trip ending at `end`, in the stay starting at `to`.
    package func trip(end: Date, to: Date?, isOpen: Bool) -> Trip {
        Trip(
            start: start, end: end, from: from, to: to, distance: distance, maxSpeed: maxSpeed, fixes: fixes,
            isOpen: isOpen)
    }
}
