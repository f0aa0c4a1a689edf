import Foundation
import LocationState

/// One line of the timeline: a stay or a trip, closed or open.
public enum TimelineEntry: Sendable, Hashable, JSONLine {
    case stay(Stay)
    case trip(Trip)

    public var start: Date {
        switch self {
        case .stay(let stay): stay.start
        case .trip(let trip): trip.start
        }
    }

    public var end: Date {
        switch self {
        case .stay(let stay): stay.end
        case .trip(let trip): trip.end
        }
    }

    public var isOpen: Bool {
        switch self {
        case .stay(let stay): stay.isOpen
        case .trip(let trip): trip.isOpen
        }
    }

    /// Appends the entry's STAY or TRIP line (no newline) to `out`.
    public func appendJSON(to out: inout [UInt8]) {
        switch self {
        case .stay(let stay): stay.appendJSON(to: &out)
        case .trip(let trip): trip.appendJSON(to: &out)
        }
    }
}

extension MotionTracker {
    /// What the tracker holds that is not closed yet: the last stay while it may still
    /// be continued (shown closed), the open stay and the open trip, in time order.
    public var pendingEntries: [TimelineEntry] {
        var entries: [TimelineEntry] = []
        if let closingStay { entries.append(.stay(closingStay)) }
        if let openTrip { entries.append(.trip(openTrip)) }
        if let openStay { entries.append(.stay(openStay)) }
        return entries.sorted { $0.start < $1.start }
    }
}
