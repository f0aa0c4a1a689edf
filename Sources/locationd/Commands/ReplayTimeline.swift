import Foundation
import LocationRegions
import LocationState
import LocationTimeline

/// `replay --timeline`: the replayed fixes through the motion tracker, each stay and trip
/// it closes printed after the fix that closed it.
///
/// As trackintel's default (`include_last=False`), the stay or trip still open at the end
/// of the file is not printed as closed; the summary names it.
final class ReplayTimeline: Sendable {
    private let tracker: Locked<(tracker: MotionTracker, namer: TimelineNamer)>
    /// The places of the file's stays: a place's id is the order of its first stay among
    /// the file's places (1, 2, ...); two places a stay joins keep the earlier's.
    private let places = Locked((clusters: PlaceClusters(), ids: [Int: Int]()))
    private let counts = Locked((stays: 0, trips: 0, distance: 0.0))

    init(configuration: MotionConfiguration, naming: StayNaming? = nil) {
        tracker = Locked((MotionTracker(configuration: configuration), TimelineNamer(naming: naming)))
    }

    /// What names the replayed stays: the first of `regions` that holds one (`--regions`),
    /// else the nearest populated place (``PlaceNamesFile``).
    static func naming(regions: RegionSet?) -> StayNaming? {
        let places = PlaceNamesFile.naming
        guard let regions else { return places }
        let names = LocationNames(regions: { regions })
        return { latitude, longitude in names.name(lat: latitude, lon: longitude) ?? places?(latitude, longitude) }
    }

    /// Takes one replayed fix; prints what it closed.
    func record(_ fix: Location, to output: ReplayOutput) {
        let events = tracker.withLock { state in state.namer.name(state.tracker.ingest(fix), tracker: state.tracker) }
        print(events, to: output)
    }

    /// Closes what the end of the file closes, prints it, and returns the summary line's text.
    func finish(to output: ReplayOutput) -> String {
        let (events, tracker) = self.tracker.withLock { state in
            (state.namer.name(state.tracker.finish(), tracker: state.tracker), state.tracker)
        }
        print(events, to: output)
        let (stays, trips, distance) = counts.withLock { $0 }
        var summary = "timeline: \(stays) stays, \(trips) trips (\(TimelineEntry.distance(distance)))"
        if let stay = tracker.openStay {
            summary += "; at the end, a stay since \(UTCCalendar.iso8601(stay.start)), still open"
        } else if let trip = tracker.openTrip {
            summary += "; at the end, a trip since \(UTCCalendar.iso8601(trip.start)), still open"
        }
        let ignored = tracker.ignored
        if ignored.total > 0 {
            let reasons = [
                (ignored.withoutPosition, "without a position"), (ignored.withoutTime, "without a time"),
                (ignored.outOfOrder, "not after the fix before"),
                (ignored.misdated, "misdated, far from the fixes around them"), (ignored.jumps, "beyond --max-speed"),
            ].filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
            summary += "; ignored \(ignored.total) fixes (" + reasons.joined(separator: ", ") + ")"
        }
        if ignored.timeResets > 0 {
            let times = ignored.timeResets == 1 ? "once" : "\(ignored.timeResets) times"
            summary += "; the fixes' time went back for good \(times): started over on it"
        }
        return summary
    }

    private func print(_ events: [TimelineEvent], to output: ReplayOutput) {
        for event in events {
            switch event {
            case .stayClosed(var stay):
                counts.withLock { $0.stays += 1 }
                stay.place = places.withLock { places in
                    let index = places.clusters.add(latitude: stay.latitude, longitude: stay.longitude)
                    let root = places.clusters.place(of: index)
                    if places.ids[root] == nil { places.ids[root] = places.ids.count + 1 }
                    return places.ids[root]
                }
                output.print(.stay(stay))
            case .tripClosed(let trip):
                counts.withLock {
                    $0.trips += 1
                    $0.distance += trip.distance
                }
                output.print(.trip(trip))
            case .stayDropped(let stay):
                output.print(dropped: stay)
            case .motion:
                break
            }
        }
    }
}
