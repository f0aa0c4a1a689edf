import Foundation

/// A place as the timeline keeps it: its id, the stay it is anchored to (its earliest:
/// start and centroid), and the name a user gave it.
public struct PlaceRecord: Sendable, Hashable {
    public var id: Int
    public var anchor: Date
    public var latitude: Double
    public var longitude: Double
    /// The user's name (`locationd places rename`), which wins over the stays' names.
    public var name: String?

    public init(id: Int, anchor: Date, latitude: Double, longitude: Double, name: String? = nil) {
        self.id = id
        self.anchor = anchor
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
    }
}

/// Stable place ids: the stays clustered (``PlaceClusters``), each place given the id of the
/// kept record it continues.
///
/// A place continues a record when one of its stays is the record's anchor, or lies
/// within epsilon of the anchor's centroid (a rebuild with other thresholds makes other
/// stays); of several, the smallest id (the oldest place: two places joined by a stay between
/// them keep the older's id, and the user's name of either, the kept id's first). A place
/// that continues none gets the id after the largest kept. So ids survive a restart
/// (they are stored), a rebuild (the records are kept), and a merge. A record a user named
/// is kept while no stay is there.
public enum PlaceIdentity {
    /// The place id of each of `stays` (in their order) and the records that are kept now.
    public static func assign(stays: [Stay], records: [PlaceRecord], epsilon: Double = 100) -> (
        ids: [Int], records: [PlaceRecord]
    ) {
        let order = stays.indices.sorted { stays[$0].start < stays[$1].start }
        let (sortedIDs, kept, _) = assign(sorted: order.map { stays[$0] }, records: records, epsilon: epsilon)
        var ids = [Int](repeating: 0, count: stays.count)
        for (position, index) in order.enumerated() { ids[index] = sortedIDs[position] }
        return (ids, kept)
    }

    /// ``assign(stays:records:epsilon:)`` for stays in the order of their starts, with the
    /// clusters it made (the stays added in that order).
    static func assign(sorted stays: [Stay], records: [PlaceRecord], epsilon: Double) -> (
        ids: [Int], records: [PlaceRecord], clusters: PlaceClusters
    ) {
        var clusters = PlaceClusters(epsilon: epsilon)
        for stay in stays { clusters.add(latitude: stay.latitude, longitude: stay.longitude) }
        var anchors = PlaceClusters(epsilon: epsilon)
        for record in records { anchors.add(latitude: record.latitude, longitude: record.longitude) }
        var byAnchor: [Int64: Int] = [:]
        for (position, record) in records.enumerated() { byAnchor[key(record.anchor)] = position }
        var next = (records.map(\.id).max() ?? 0) + 1
        var taken = Set<Int>()
        var ids = [Int](repeating: 0, count: stays.count)
        var kept: [PlaceRecord] = []
        for members in clusters.places() {
            var candidates = Set<Int>()
            for member in members {
                let stay = stays[member]
                if let position = byAnchor[key(stay.start)] { candidates.insert(position) }
                for position in anchors.neighbours(latitude: stay.latitude, longitude: stay.longitude) {
                    candidates.insert(position)
                }
            }
            let free = candidates.map { records[$0] }.filter { !taken.contains($0.id) }.sorted { $0.id < $1.id }
            let first = stays[members[0]]
            var record = PlaceRecord(id: 0, anchor: first.start, latitude: first.latitude, longitude: first.longitude)
            if let continued = free.first {
                record.id = continued.id
                record.name = free.lazy.compactMap(\.name).first
            } else {
                record.id = next
                next += 1
            }
            // The records it continues are spent: the merged ones with it.
            taken.insert(record.id)
            taken.formUnion(free.map(\.id))
            kept.append(record)
            for member in members { ids[member] = record.id }
        }
        // A place a user named whose stays are gone (the stay going on, not stored yet; a
        // rebuild that made none there) keeps its record and its name for the stays to come.
        kept += records.filter { $0.name != nil && !taken.contains($0.id) }
        return (ids, kept, clusters)
    }

    /// A time as the millisecond it is stored and travels at: how a stay is known by its start.
    package static func key(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
