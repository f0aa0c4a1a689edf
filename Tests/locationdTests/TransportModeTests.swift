import Foundation
import LocationProviders
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationTimeline

/// A trip's mode against trackintel's `predict_transport_mode(method="simple-coarse")`
/// itself: the same class for the same distance and duration, at the class bounds (15 and
/// 100 km/h, each closed below) and on trips of every speed; and the mode where a trip is
/// shown (its JSON and text lines).
@Suite(
    .timeLimit(.minutes(5)),
    .enabled(if: trackintelMissing == nil, Comment(rawValue: trackintelMissing ?? "")))
struct TransportModeTests {
    static let script = Repository.path("scripts/trackintel-modes")

    @Test func modesAreTrackintelsSimpleCoarseClasses() async throws {
        var trips: [(metres: Double, seconds: Double)] = [
            (15000, 3600), (14999.99, 3600), (100_000, 3600), (99999.9, 3600), (100_000.1, 3600), (0.5, 60),
            (1, 0), (2500, 600), (2500, 599.9),
        ]
        var random = SplitMix64(seed: 2026)
        for _ in 0..<300 {
            let seconds = Double(random.next() % 7200 + 1)
            let kmh = Double(random.next() % 250_000) / 1000
            trips.append((kmh / 3.6 * seconds, seconds))
        }
        let reference = try await runProgram(
            "/usr/bin/env", ["python3", Self.script] + trips.map { "\($0.metres):\($0.seconds)" })
        try #require(reference.status == 0, "\(reference.stderr)")
        let theirs = reference.stdout.split(separator: "\n").map(String.init)
        try #require(theirs.count == trips.count)
        for (trip, mode) in zip(trips, theirs) {
            let ours = TransportMode(distance: trip.metres, duration: trip.seconds)?.rawValue ?? "nan"
            #expect(ours == mode, "\(trip.metres) m in \(trip.seconds) s")
        }
        #expect(Set(theirs) == ["slow_mobility", "motorized_mobility", "fast_mobility", "nan"])
    }

    /// The JSON line carries the mode (none for a trip of no duration), the text line its word.
    @Test func aTripSaysHow() throws {
        let start = Date(timeIntervalSince1970: 1_795_420_800)
        let drive = Trip(
            start: start, end: start.addingTimeInterval(600), distance: 9000, maxSpeed: 20, fixes: 600)
        #expect(drive.jsonString.contains(#""fixes":600,"mode":"motorized_mobility"}"#), "\(drive.jsonString)")
        #expect(TimelineEntry.trip(drive).text.contains("(10 min 0 s, motorized, avg 54.0 km/h"))
        let instant = Trip(start: start, end: start, distance: 0, maxSpeed: 0, fixes: 1)
        #expect(!instant.jsonString.contains("mode"))
        guard case .trip(let read)? = TimelineEntry(jsonLine: drive.jsonString) else {
            Issue.record("the TRIP line is not read back")
            return
        }
        #expect(read.mode == .motorized)
    }
}
