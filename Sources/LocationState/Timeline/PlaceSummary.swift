import Foundation
import LocationState

/// A place as `locationd places` lists it: its id, name, label, visits, the time spent
/// there, and its first and last visit.
public struct PlaceSummary: Sendable, Equatable {
    public var id: Int
    /// The user's name, else the latest stay's name.
    public var name: String?
    /// `home` or `work` (``PlaceLabels``), or nil.
    public var label: String?
    public var visits: Int
    public var seconds: Double
    public var firstVisit: Date
    public var lastVisit: Date
    /// The anchor's centroid: the place's first stay.
    public var latitude: Double
    public var longitude: Double

    /// The places of `stays` (each with its ``Stay/place``), most time first; labels by
    /// trackintel's OSNA in `days`' zone.
    public static func summaries(of stays: [Stay], records: [Int: PlaceRecord], days: LocalDays) -> [PlaceSummary] {
        let labels = PlaceLabels.osna(stays, timeZone: days.timeZone)
        var byID: [Int: PlaceSummary] = [:]
        for stay in stays.sorted(by: { $0.start < $1.start }) {
            guard let id = stay.place else { continue }
            var summary =
                byID[id]
                ?? PlaceSummary(
                    id: id, name: nil, label: labels[id], visits: 0, seconds: 0, firstVisit: stay.start,
                    lastVisit: stay.end, latitude: records[id]?.latitude ?? stay.latitude,
                    longitude: records[id]?.longitude ?? stay.longitude)
            summary.visits += 1
            summary.seconds += stay.duration
            summary.lastVisit = max(summary.lastVisit, stay.end)
            summary.name = records[id]?.name ?? stay.name ?? summary.name
            byID[id] = summary
        }
        return byID.values.sorted { ($0.seconds, $1.id) > ($1.seconds, $0.id) }
    }
}

/// Home and work as trackintel 1.4.2's `location_identifier(staypoints, method="OSNA")`
/// labels them, pre-filter included (`trackintel/analysis/location_identification.py`).
///
/// The pre-filter (its defaults): a user needs at least 10 stays and 10 places; a place at
/// least 10 stays, an hour in all and 5 hours from its first stay's start to its last's end;
/// other places get no label. OSNA: each stay on a weekday, by the local hour of its middle,
/// is `rest` (02:00 to 08:00, its duration weighted 0.739), `work` (08:00 to 19:00) or
/// `leisure` (otherwise, weighted 0.358); weekend stays count for nothing. Home is the
/// place with the most rest and leisure, work the one with the most work time, or the one
/// after it when that is home. Ties go to the smaller id (trackintel's `idxmax` takes the
/// first in its order).
public enum PlaceLabels {
    public static func osna(_ stays: [Stay], timeZone: TimeZone) -> [Int: String] {
        let placed = stays.filter { $0.place != nil }
        // The user's filter.
        guard Set(placed.map(\.start)).count >= 10, Set(placed.compactMap(\.place)).count >= 10 else { return [:] }
        var perPlace: [Int: (count: Int, duration: Double, first: Date, last: Date)] = [:]
        for stay in placed {
            let id = stay.place ?? 0
            var entry = perPlace[id] ?? (0, 0, stay.start, stay.end)
            entry.count += 1
            entry.duration += stay.duration
            entry.first = min(entry.first, stay.start)
            entry.last = max(entry.last, stay.end)
            perPlace[id] = entry
        }
        let kept = Set(
            perPlace.filter {
                $0.value.count >= 10 && $0.value.duration >= 3600
                    && $0.value.last.timeIntervalSince($0.value.first) >= 5 * 3600
            }
            .keys)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        var home: [Int: Double] = [:]
        var work: [Int: Double] = [:]
        for stay in placed {
            guard let id = stay.place, kept.contains(id) else { continue }
            let middle = stay.start.addingTimeInterval(stay.duration / 2)
            let parts = calendar.dateComponents([.weekday, .hour], from: middle)
            // Calendar's weekday: 1 is Sunday, 7 Saturday.
            guard let weekday = parts.weekday, weekday != 1, weekday != 7, let hour = parts.hour else { continue }
            switch hour {
            case 2..<8: home[id, default: 0] += stay.duration * 0.739
            case 8..<19: work[id, default: 0] += stay.duration
            default: home[id, default: 0] += stay.duration * 0.358
            }
        }
        var labels: [Int: String] = [:]
        let homeID = best(home)
        if let homeID { labels[homeID] = "home" }
        if let workID = best(work.filter { $0.key != homeID }) { labels[workID] = "work" }
        return labels
    }

    /// The id with the largest value, the smaller id on a tie.
    private static func best(_ values: [Int: Double]) -> Int? {
        values.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key
    }
}
