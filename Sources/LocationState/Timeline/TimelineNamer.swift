import Foundation

/// Names what the motion tracker closes as it closes: each stay by ``StayNaming``, and each
/// trip by the stays it left and reached (the one it left named when it closed; the one it
/// reached, open when the trip closes, named then), and a stop by the stay it is at (the
/// same name as the trip that reached it).
public struct TimelineNamer: Sendable {
    public let naming: StayNaming?
    /// The names of the stays named lately, by start (a handful: a trip closes right after
    /// the stay it left).
    private var recent: [(start: Date, name: String?)] = []

    public init(naming: StayNaming?) {
        self.naming = naming
    }

    /// `events` with their stays and trips named; `tracker` is the tracker after them.
    public mutating func name(_ events: [TimelineEvent], tracker: MotionTracker) -> [TimelineEvent] {
        guard naming != nil, !events.isEmpty else { return events }
        // A stay keeps the name it was given when a trip reached it (its centroid has moved a little since).
        var named = events.map { event -> TimelineEvent in
            switch event {
            case .stayClosed(var stay), .stayDropped(var stay):
                stay.name = stay.name ?? recent.last(where: { $0.start == stay.start })?.name
                if case .stayDropped = event { return .stayDropped(stay.named(by: naming)) }
                return .stayClosed(stay.named(by: naming))
            case .tripClosed, .motion:
                return event
            }
        }
        for case .stayClosed(let stay) in named { remember(stay) }
        for index in named.indices {
            if case .motion(let motion) = named[index], let since = motion.stoppedSince {
                named[index] = .motion(motion.named(name(of: since, tracker: tracker)))
            }
            guard case .tripClosed(var trip) = named[index] else { continue }
            trip.fromName = trip.from.flatMap { name(of: $0, tracker: tracker) }
            trip.toName = trip.to.flatMap { name(of: $0, tracker: tracker) }
            named[index] = .tripClosed(trip)
        }
        return named
    }

    private mutating func remember(_ stay: Stay) {
        recent.removeAll { $0.start == stay.start }
        recent.append((stay.start, stay.name))
        if recent.count > 8 { recent.removeFirst() }
    }

    /// The name of the stay that started at `start`: one named lately, else the tracker's
    /// closing or open stay, looked up now.
    private mutating func name(of start: Date, tracker: MotionTracker) -> String? {
        if let known = recent.last(where: { $0.start == start }) { return known.name }
        guard let stay = [tracker.closingStay, tracker.openStay].compactMap({ $0 }).first(where: { $0.start == start })
        else { return nil }
        let named = stay.named(by: naming)
        remember(named)
        return named.name
    }
}
