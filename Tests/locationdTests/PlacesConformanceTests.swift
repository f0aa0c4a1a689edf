import Foundation
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationTimeline

/// Places and their labels against trackintel itself (`scripts/trackintel-places`:
/// `generate_locations` DBSCAN 100 m, one sample, haversine; `location_identifier` OSNA) on
/// four weeks of a person's stays made up from seeds: nights at home, weekdays at work, a gym,
/// shops and friends now and then, each stay's centroid scattered up to 70 m around its
/// place (so that visits chain into one place, or do not, as the distances fall), a café
/// visited once 90 to 110 m from the shop, and the times in Europe/Zurich.
@Suite(.timeLimit(.minutes(5)), .disabled(if: trackintelMissing != nil, Comment(rawValue: trackintelMissing ?? "")))
struct PlacesConformanceTests {
    static let zone = "Europe/Zurich"

    /// The stays of four weeks from `seed`.
    static func stays(seed: UInt64) -> [Stay] {
        var random = Xorshift(seed: seed)
        let metres = 1 / 111_195.0
        let anchors = (0..<12).map { _ in (47.3 + random.uniform(0, 0.1), 8.5 + random.uniform(0, 0.1)) }
        let cafe = (anchors[3].0 + random.uniform(90, 110) * metres, anchors[3].1)
        func stay(_ start: Double, _ hours: Double, at place: (Double, Double)) -> Stay {
            let angle = random.uniform(0, 2 * .pi)
            let distance = random.uniform(0, 70)
            let latitude = place.0 + distance * cos(angle) * metres
            let longitude = place.1 + distance * sin(angle) * metres / cos(place.0 * .pi / 180)
            return Stay(
                start: Date(timeIntervalSince1970: start), end: Date(timeIntervalSince1970: start + hours * 3600),
                latitude: latitude, longitude: longitude, radius: 5, fixes: 100)
        }
        // Monday 2026-11-02, 00:00 in Zurich (UTC+1).
        let monday = 1_794_006_000.0
        var stays: [Stay] = []
        for day in 0..<28 {
            let midnight = monday + Double(day) * 86_400
            let weekday = day % 7 < 5
            stays.append(stay(midnight - 5 * 3600, 12.5, at: anchors[0]))  // 19:00 to 07:30, home
            if weekday {
                stays.append(stay(midnight + 8.5 * 3600, 9, at: anchors[1]))  // work
            } else {
                stays.append(stay(midnight + 10 * 3600, 2, at: anchors[2 + random.below(8)]))
            }
            if random.below(3) == 0 {
                stays.append(stay(midnight + 17.75 * 3600, 1, at: anchors[2 + random.below(10)]))
            }
            if day == 9 { stays.append(stay(midnight + 18 * 3600, 0.5, at: cafe)) }
        }
        return stays.sorted { $0.start < $1.start }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func theSamePlacesAndLabelsAsTrackintel(seed: UInt64) async throws {
        let stays = Self.stays(seed: seed)
        let (ids, _) = PlaceIdentity.assign(stays: stays, records: [])
        let placed = zip(stays, ids).map { stay, id -> Stay in
            var stay = stay
            stay.place = id
            return stay
        }
        let ours = PlaceLabels.osna(placed, timeZone: TimeZone(identifier: Self.zone)!)

        let directory = try TemporaryDirectory()
        let input = directory.path + "/stays"
        try stays.map {
            String(
                format: "%.3f %.3f %.9f %.9f\n", $0.start.timeIntervalSince1970, $0.end.timeIntervalSince1970,
                $0.latitude, $0.longitude)
        }.joined().write(toFile: input, atomically: true, encoding: .utf8)
        let script = Repository.root.appendingPathComponent("scripts/trackintel-places").path
        let run = try await runProgram("/bin/sh", ["-c", "\(script) \(Self.zone) < \(input) 2>/dev/null"])
        #expect(run.status == 0, "\(run.stderr)")
        let theirs = run.stdout.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        try #require(theirs.count == stays.count, "\(run.stdout.prefix(300))")

        // The same partition: each of our places is exactly one of theirs.
        var ourToTheirs: [Int: String] = [:]
        var theirsToOurs: [String: Int] = [:]
        for (id, their) in zip(ids, theirs) {
            #expect(ourToTheirs[id, default: their[0]] == their[0], "place \(id) is split by trackintel")
            #expect(theirsToOurs[their[0], default: id] == id, "trackintel's location \(their[0]) is split here")
            ourToTheirs[id] = their[0]
            theirsToOurs[their[0]] = id
        }
        #expect(Set(ids).count > 5, "a test with few places proves little")
        // The same labels.
        var theirLabels: [Int: String] = [:]
        for (id, their) in zip(ids, theirs) where their[1] != "-" { theirLabels[id] = their[1] }
        #expect(ours == theirLabels, "ours \(ours), trackintel's \(theirLabels)")
        #expect(ours.values.sorted() == ["home", "work"])
    }
}
