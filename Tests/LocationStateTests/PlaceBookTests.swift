import Foundation
import LocationProviders
import LocationTestSupport
import Logging
import Testing

@testable import LocationState
@testable import LocationTimeline

/// The places kept stay by stay (`PlaceBook`) are exactly those of clustering every stay
/// again (`PlaceIdentity.assign`, with the records the last step kept, as the store keeps
/// them), after every stay, whether it was placed alone or refused and clustered again.
struct PlaceBookTests {
    static let metres = 1 / 111_195.0

    /// Stays around a few spots 60 to 250 m apart (so that stays join places, make new ones
    /// and join two), now and then one that starts earlier or again, and now and then a
    /// name given to a place or to a spot with no stay yet (the stay going on).
    ///
    /// Each step yields: a step clusters every stay again, and five seeds of 600 steps held
    /// the cooperative pool's two threads for half a minute of a loaded run, in which other
    /// tests' waits ran out.
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func keptStayByStayIsClusteredAgain(seed: UInt64) async {
        var random = SplitMix64(seed: seed)
        func uniform(_ low: Double, _ high: Double) -> Double {
            low + (high - low) * Double(random.next() >> 11) / Double(1 << 53)
        }
        let spots = (0..<12).map { _ in
            (47.37 + uniform(0, 600) * Self.metres, 8.54 + uniform(0, 600) * Self.metres / 0.677)
        }
        var stays: [Stay] = []
        var records: [PlaceRecord] = []
        var book = PlaceBook(stays: [], records: [])
        var alone = 0
        var again = 0
        var time = 1_800_000_000.0
        for step in 0..<600 {
            await Task.yield()
            time += uniform(600, 7200)
            let spot = spots[Int(random.next() % UInt64(spots.count))]
            let (angle, distance) = (uniform(0, 2 * .pi), uniform(0, 60))
            var start = time
            let roll = random.next() % 40
            if roll == 0, let earlier = stays.randomElement(using: &random) {
                start = earlier.start.timeIntervalSince1970
            }
            if roll == 1 { start = time - 86_400 }
            let stay = Stay(
                start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: start + 600),
                latitude: spot.0 + distance * cos(angle) * Self.metres,
                longitude: spot.1 + distance * sin(angle) * Self.metres / 0.677, radius: 5, fixes: 60)
            // The store: a stay with a start already stored replaces it.
            stays.removeAll { PlaceIdentity.key($0.start) == PlaceIdentity.key(stay.start) }
            stays.append(stay)
            let expected = PlaceIdentity.assign(stays: stays, records: records)
            if book.append(stay).placed {
                alone += 1
            } else {
                again += 1
                book = PlaceBook(stays: stays, records: records)
            }
            var expectedIDs: [Int64: Int] = [:]
            for (stay, id) in zip(stays, expected.ids) { expectedIDs[PlaceIdentity.key(stay.start)] = id }
            #expect(book.index.ids == expectedIDs, "step \(step)")
            #expect(book.records == expected.records.sorted { $0.id < $1.id }, "step \(step)")
            records = book.records
            // A user names a place now and then, or the spot of a stay going on (a record
            // with no stay); the store clusters again after a rename.
            if random.next() % 50 == 0, let id = records.randomElement(using: &random)?.id,
                let position = records.firstIndex(where: { $0.id == id })
            {
                records[position].name = "Place \(step)"
                book = PlaceBook(stays: stays, records: records)
            }
            if random.next() % 60 == 0 {
                let spot = spots[Int(random.next() % UInt64(spots.count))]
                records.append(
                    PlaceRecord(
                        id: (records.map(\.id).max() ?? 0) + 1, anchor: Date(timeIntervalSince1970: time + 1),
                        latitude: spot.0, longitude: spot.1, name: "Pending \(step)"))
                book = PlaceBook(stays: stays, records: records)
                records = book.records
            }
        }
        // Most stays are placed alone; the others (merges, late or repeated starts, a named
        // spot nearby) were clustered again, and the test saw both.
        #expect(alone > 400 && again > 5, "\(alone) alone, \(again) again")
    }

    /// A store that keeps its places stay by stay stores what clustering all again gives:
    /// each stay recorded alone (and now and then a stay going on asked about, a rename),
    /// the places it answers, and those of the same file opened afresh, are the same.
    @Test func aStoreKeepsWhatItStores() async throws {
        let directory = try TemporaryDirectory()
        let url = URL(fileURLWithPath: directory.path)
        let store = try TimelineStore(directory: url, logger: Logger(label: "test"))
        var random = SplitMix64(seed: 11)
        let spots = (0..<6).map { index in (47.37 + Double(index) * 130 * Self.metres, 8.54) }
        for step in 0..<120 {
            await Task.yield()
            let spot = spots[Int(random.next() % UInt64(spots.count))]
            let start = 1_800_000_000 + Double(step) * 3600
            let stay = Stay(
                start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: start + 1800),
                latitude: spot.0 + Double(random.next() % 40) * Self.metres, longitude: spot.1, radius: 5, fixes: 60)
            try store.record([.stayClosed(stay)], tracker: nil)
            if step % 10 == 9 {
                var open = stay
                open.start = stay.end.addingTimeInterval(1200)
                open.latitude = spots[Int(random.next() % UInt64(spots.count))].0
                let (kept, fresh) = (
                    try store.placedStays(extra: [open]),
                    try TimelineStore.openReadOnly(at: url.appendingPathComponent(TimelineStore.fileName)).placedStays(
                        extra: [open])
                )
                #expect(kept.stays.map(\.place) == fresh.stays.map(\.place), "step \(step)")
                #expect(kept.records == fresh.records, "step \(step)")
                #expect(kept.stays.last?.place != nil)
            }
            if step == 60, let id = try store.placeIndex().records.keys.min() {
                try store.renamePlace(id, to: "Home")
            }
        }
        let fresh = try TimelineStore.openReadOnly(at: url.appendingPathComponent(TimelineStore.fileName))
        let (kept, again) = (try store.placedStays(), try fresh.placedStays())
        #expect(kept.stays.map(\.place) == again.stays.map(\.place))
        #expect(kept.records == again.records && again.records.values.contains { $0.name == "Home" })
        // Stored as clustering all of them again from no records gives (no merges here).
        let (ids, _) = PlaceIdentity.assign(stays: again.stays, records: [])
        #expect(Set(zip(ids, again.stays.compactMap(\.place)).map { "\($0)-\($1)" }).count == Set(ids).count)
    }
}
