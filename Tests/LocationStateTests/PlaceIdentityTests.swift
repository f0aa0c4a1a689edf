import Foundation
import Testing

@testable import LocationState
@testable import LocationTimeline

/// Places: stays chained within reach are one place, and a place keeps its id.
struct PlaceIdentityTests {
    static let metres = 1 / 111_195.0

    static func stay(_ start: Double, north: Double = 0, at latitude: Double = 47.37) -> Stay {
        Stay(
            start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: start + 600),
            latitude: latitude + north * metres, longitude: 8.54, radius: 5, fixes: 60)
    }

    /// Stays 60 m apart in a line chain into one place; one 150 m beyond the chain is another.
    @Test func aChainIsOnePlace() {
        let stays = [
            Self.stay(0), Self.stay(1000, north: 60), Self.stay(2000, north: 120), Self.stay(3000, north: 270),
        ]
        let (ids, records) = PlaceIdentity.assign(stays: stays, records: [])
        #expect(ids == [1, 1, 1, 2])
        #expect(records.map(\.anchor) == [stays[0].start, stays[3].start])
    }

    /// A stay between two places joins them: the older id stays, with the user's name of either.
    @Test func aMergeKeepsTheOlderIDAndTheName() {
        let first = [Self.stay(0), Self.stay(1000, north: 150)]
        let (ids, records) = PlaceIdentity.assign(stays: first, records: [])
        #expect(ids == [1, 2])
        var named = records
        named[1].name = "Gym"
        let joined = first + [Self.stay(2000, north: 75)]
        let (after, kept) = PlaceIdentity.assign(stays: joined, records: named)
        #expect(after == [1, 1, 1])
        #expect(kept.map(\.id) == [1] && kept.first?.name == "Gym")
    }

    /// A rebuild makes other stays at the same places: each keeps its id by its anchor's
    /// place, a new place takes the next id, and a named place with no stay keeps its record.
    @Test func idsSurviveARebuild() {
        let before = [Self.stay(0), Self.stay(1000, north: 500), Self.stay(2000, north: 1000)]
        var (_, records) = PlaceIdentity.assign(stays: before, records: [])
        records[2].name = "Shop"
        // Rebuilt: the first two places' stays moved a little and start at other times; the
        // shop is gone (no stay), a new place appears.
        let rebuilt = [Self.stay(500, north: 20), Self.stay(1500, north: 530), Self.stay(2500, north: 3000)]
        let (ids, kept) = PlaceIdentity.assign(stays: rebuilt, records: records)
        #expect(ids == [1, 2, 4])
        #expect(kept.contains { $0.id == 3 && $0.name == "Shop" })
    }

    /// Reach is the true great-circle distance: 99 m is a neighbour and 101 m is not, north
    /// or east, at 47° N and at 70° S by the antimeridian.
    @Test func reachIs100Metres() {
        let degree = 6_371_000 * Double.pi / 180
        for (latitude, longitude) in [(47.37, 8.54), (-70.0, 179.9999)] {
            var clusters = PlaceClusters()
            clusters.add(latitude: latitude, longitude: longitude)
            let north = { (metres: Double) in
                clusters.neighbours(latitude: latitude + metres / degree, longitude: longitude)
            }
            let east = { (metres: Double) in
                var east = longitude + metres / degree / cos(latitude * .pi / 180)
                if east >= 180 { east -= 360 }
                return clusters.neighbours(latitude: latitude, longitude: east)
            }
            #expect(north(99) == [0] && north(101).isEmpty, "\(latitude)")
            #expect(east(99) == [0] && east(101).isEmpty, "\(latitude)")
        }
    }
}
