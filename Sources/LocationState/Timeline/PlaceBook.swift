import Foundation

/// The places of the stored stays, held in memory by the store that writes them, so that a
/// stay closing after every stored one is placed without clustering all of them again.
///
/// It is exactly ``PlaceIdentity/assign(stays:records:epsilon:)`` over its stays and the
/// records it was made from, kept up stay by stay: a stay that starts after every one held
/// either makes a new place (no stay and no record within reach) or joins the one place
/// whose stays alone are within reach (no other record within reach), and neither changes
/// any other place's id or record. Anything else (a stay that joins two places, one near
/// another place's record, one that starts earlier or replaces a stay) is refused by
/// ``append(_:)``, and the caller clusters everything again (``init(stays:records:)``).
/// `PlaceBookTests` checks it against `assign` stay by stay.
struct PlaceBook: Sendable {
    /// The millisecond the latest stay started (its key); nil without stays. The stays
    /// themselves are not kept: their centroids are in ``clusters``, and whoever needs them
    /// reads them from the file.
    private var latest: Int64?
    /// The place of each stay and the records kept by id, as `assign` gives them (and the
    /// store stores them).
    private(set) var index = PlaceIndex(ids: [:], records: [:])
    private var clusters: PlaceClusters
    /// The id of each place, by the index of its first stay (its root in ``clusters``).
    private var idByRoot: [Int: Int] = [:]

    /// The places of `stays` (in any order) continuing `records`, all clustered.
    init(stays: [Stay], records: [PlaceRecord], epsilon: Double = 100) {
        let sorted = stays.sorted { $0.start < $1.start }
        let assigned = PlaceIdentity.assign(sorted: sorted, records: records, epsilon: epsilon)
        latest = sorted.last.map { PlaceIdentity.key($0.start) }
        clusters = assigned.clusters
        for (position, stay) in sorted.enumerated() {
            let id = assigned.ids[position]
            index.ids[PlaceIdentity.key(stay.start)] = id
            idByRoot[clusters.place(of: position)] = id
        }
        for record in assigned.records { index.records[record.id] = record }
    }

    /// The records kept, by id.
    var records: [PlaceRecord] { index.records.values.sorted { $0.id < $1.id } }

    /// Places `stay` as clustering every stay again would; returns the record it made (a
    /// new place), nil when it joined a place; `false` in `placed` when it must be clustered
    /// with the others again (see the type's documentation), in which case nothing changed.
    mutating func append(_ stay: Stay) -> (placed: Bool, made: PlaceRecord?) {
        guard let (id, made) = placing(stay) else { return (false, nil) }
        let position = clusters.add(latitude: stay.latitude, longitude: stay.longitude)
        latest = PlaceIdentity.key(stay.start)
        index.ids[PlaceIdentity.key(stay.start)] = id
        if let made {
            index.records[id] = made
            idByRoot[clusters.place(of: position)] = id
        }
        return (true, made)
    }

    /// The place `stay` would have if appended (and the record it would make), changing
    /// nothing; nil when it would have to be clustered with the others again.
    func placing(_ stay: Stay) -> (id: Int, made: PlaceRecord?)? {
        let key = PlaceIdentity.key(stay.start)
        if let latest, key <= latest { return nil }
        let nearRecords = index.records.values.filter { record in
            PlaceIdentity.key(record.anchor) == key
                || clusters.reaches(stay.latitude, stay.longitude, record.latitude, record.longitude)
        }
        let roots = Set(clusters.neighbours(latitude: stay.latitude, longitude: stay.longitude).map(clusters.root))
        switch roots.count {
        case 0:
            guard nearRecords.isEmpty else { return nil }
            let id = (index.records.keys.max() ?? 0) + 1
            return (id, PlaceRecord(id: id, anchor: stay.start, latitude: stay.latitude, longitude: stay.longitude))
        case 1:
            guard let joined = idByRoot[roots.first!], nearRecords.allSatisfy({ $0.id == joined }) else { return nil }
            return (joined, nil)
        default:
            return nil
        }
    }
}
