import Foundation

/// Where the device is as far as regions go: what ``RegionMembership/next(previous:fix:regions:now:options:)``
/// remembers from one fix to the next, and what is persisted across restarts.
public struct MembershipState: Sendable, Hashable, Codable {
    /// The regions the device is in.
    public var inside: Set<RegionID>
    /// Regions the device is inside of but has not yet been in for the dwell time,
    /// with the time it was first seen inside.
    public var pendingSince: [RegionID: Date]
    /// Whether a fix has settled the state since monitoring began. Before that, the
    /// regions the first fix is inside of are joined without an event, as CoreLocation
    /// does when monitoring starts.
    public var settled: Bool

    public init(inside: Set<RegionID> = [], pendingSince: [RegionID: Date] = [:], settled: Bool = false) {
        self.inside = inside
        self.pendingSince = pendingSince
        self.settled = settled
    }

    /// Nothing known yet.
    public static let initial = MembershipState()

    /// The state with only the regions of `regions` (by identifier): the others were
    /// removed from the region file, and are forgotten without a leave event.
    public func retaining(_ regions: RegionSet) -> MembershipState {
        MembershipState(
            inside: inside.filter(regions.contains), pendingSince: pendingSince.filter { regions.contains($0.key) },
            settled: settled)
    }
}
