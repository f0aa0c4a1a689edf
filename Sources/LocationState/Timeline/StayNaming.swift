import Foundation

/// What names a place: the name at a latitude and longitude (degrees), or nil.
public typealias StayNaming = @Sendable (_ latitude: Double, _ longitude: Double) -> String?

extension Stay {
    /// This stay with its name looked up by `naming` when it has none.
    public func named(by naming: StayNaming?) -> Stay {
        guard name == nil, let naming else { return self }
        var stay = self
        stay.name = naming(latitude, longitude)
        return stay
    }
}

extension TimelineEntry {
    /// This entry, a stay named by `naming` when it has no name.
    public func named(by naming: StayNaming?) -> TimelineEntry {
        if case .stay(let stay) = self, stay.name == nil, naming != nil { return .stay(stay.named(by: naming)) }
        return self
    }
}

extension TimelineEvent {
    /// This event, a closed or dropped stay named by `naming` when it has no name.
    public func named(by naming: StayNaming?) -> TimelineEvent {
        switch self {
        case .stayClosed(let stay): .stayClosed(stay.named(by: naming))
        case .stayDropped(let stay): .stayDropped(stay.named(by: naming))
        case .tripClosed, .motion: self
        }
    }
}

extension Array where Element == TimelineEntry {
    /// These entries, each trip given the names of the listed stays it left and reached
    /// where it has none (the store keeps names with the stays only).
    public func withTripNames() -> [TimelineEntry] {
        var names: [Date: String] = [:]
        for case .stay(let stay) in self { names[stay.start] = stay.name }
        return map { entry in
            guard case .trip(var trip) = entry else { return entry }
            trip.fromName = trip.fromName ?? trip.from.flatMap { names[$0] }
            trip.toName = trip.toName ?? trip.to.flatMap { names[$0] }
            return .trip(trip)
        }
    }
}
