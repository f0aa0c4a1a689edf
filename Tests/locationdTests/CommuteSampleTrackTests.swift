import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationState
@testable import LocationTimeline

/// SampleTracks/commute.nmea (a drive, a 10 min stop with a receiver's jitter, a drive on, a
/// park at the end): its one stay and the trips around it, held against what the generator
/// put in, through `locationd replay --timeline` and through a real gpsd into the daemon.
@Suite(.timeLimit(.minutes(5)))
struct CommuteSampleTrackTests {
    static let commute = ReplaySampleTracks.commuteTrack()
    static let path = Repository.sampleTrack("commute.nmea")

    /// Metres between two points (trackintel's sphere, as the stay rule measures).
    static func metres(_ a: (latitude: Double, longitude: Double), _ b: (latitude: Double, longitude: Double)) -> Double
    {
        SphericalEarth.distance(
            latitude1: a.latitude, longitude1: a.longitude, latitude2: b.latitude, longitude2: b.longitude)
    }

    /// The path along the stop's fixes: what the jitter would add to a trip that counted it.
    static var jitterPath: Double {
        let parked = commute.fixes.filter { commute.parked.contains($0.time!) }
        return zip(parked, parked.dropFirst()).reduce(0) { sum, pair in
            sum + metres((pair.0.lat!, pair.0.lon!), (pair.1.lat!, pair.1.lon!))
        }
    }

    /// The stay and trips of `locationd replay --timeline`, and the stay its summary names open.
    static func replayed() async throws -> (stays: [Stay], trips: [Trip], openStay: Date?) {
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "json", "--timeline"])
        #expect(run.status == 0, "\(run.stderr)")
        var stays: [Stay] = []
        var trips: [Trip] = []
        for line in run.stdout.split(separator: "\n") where !line.contains(#""class":"TPV""#) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let date = { (key: String) in (object[key] as? String).flatMap { UTCCalendar.parseISO8601($0) } }
            switch object["class"] as? String {
            case "STAY":
                stays.append(
                    Stay(
                        start: try #require(date("start")), end: try #require(date("end")),
                        latitude: try #require(object["lat"] as? Double),
                        longitude: try #require(object["lon"] as? Double),
                        radius: try #require(object["radius"] as? Double), fixes: try #require(object["fixes"] as? Int))
                )
            case "TRIP":
                trips.append(
                    Trip(
                        start: try #require(date("start")), end: try #require(date("end")), from: date("from"),
                        to: date("to"), distance: try #require(object["distance"] as? Double),
                        maxSpeed: try #require(object["maxSpeed"] as? Double),
                        fixes: try #require(object["fixes"] as? Int)))
            default:
                Issue.record("an unexpected line: \(line)")
            }
        }
        let open = run.stderr.split(separator: " ").drop { $0 != "since" }.dropFirst().first
        return (
            stays, trips, open.flatMap { UTCCalendar.parseISO8601($0.trimmingCharacters(in: .punctuationCharacters)) }
        )
    }

    /// Holds the stop's stay against the generator: every parked fix and at most the
    /// approach's last ten seconds, the centroid within metres of where the car stood.
    static func expectTheStop(_ stay: Stay, sourceLocation: SourceLocation = #_sourceLocation) {
        let parked = commute.parked
        #expect(stay.start <= parked.lowerBound && stay.start >= parked.lowerBound - 10, sourceLocation: sourceLocation)
        #expect(stay.end > parked.upperBound && stay.end <= parked.upperBound + 20, sourceLocation: sourceLocation)
        let inside = commute.fixes.filter { $0.time! >= stay.start && $0.time! < stay.end }.count
        #expect(stay.fixes == inside && stay.fixes >= commute.parkedFixes, sourceLocation: sourceLocation)
        #expect(metres((stay.latitude, stay.longitude), commute.stop) < 5, "\(stay)", sourceLocation: sourceLocation)
        #expect(stay.radius < 10, sourceLocation: sourceLocation)
    }

    /// Holds a trip's distance against the drive's: the drive less what the stays at either end
    /// hold of it, and nothing from the 10 min of jitter.
    static func expectNoJitter(_ trip: Trip, drive: Double, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(trip.distance <= drive + 10 && trip.distance >= drive - 150, "\(trip)", sourceLocation: sourceLocation)
    }

    @Test func replayGivesOneStayAndTripsWithoutTheJitter() async throws {
        // The jitter would be seen if it were counted.
        #expect(Self.jitterPath > 300)
        let (stays, trips, openStay) = try await Self.replayed()
        try #require(stays.count == 1 && trips.count == 2, "\(stays) \(trips)")
        Self.expectTheStop(stays[0])
        #expect(trips[0].from == nil && trips[0].to == stays[0].start)
        #expect(trips[1].from == stays[0].start && trips[1].to == openStay && openStay != nil)
        for (trip, drive) in zip(trips, Self.commute.drives) { Self.expectNoJitter(trip, drive: drive) }
    }

    /// The same file through gpsfake and a real gpsd into `locationd run`: the daemon's
    /// timeline holds the same stay, the trip after it and the open stay at the end.
    @Test func throughGPSDTheDaemonStoresTheSameStay() async throws {
        let (stays, trips, openStay) = try await Self.replayed()
        let expected = try #require(stays.first)
        let directory = try TemporaryDirectory()
        // The file after 600 s without a fix: a gpsd that has just opened gpsfake's terminal
        // loses a few hundred sentences while it finds the line's speed and framing.
        var log: [UInt8] = []
        let first = try #require(Self.commute.fixes.first?.time)
        for second in stride(from: 600, to: 0, by: -1) {
            NMEAWriter().appendNoFix(at: first.addingTimeInterval(-Double(second)), to: &log)
        }
        log += try Data(contentsOf: URL(fileURLWithPath: Self.path))
        let logURL = URL(fileURLWithPath: directory.path + "/commute.nmea")
        try Data(log).write(to: logURL)
        let gpsfake = try GPSFake(log: logURL, cycle: 0.002, once: true)
        defer { gpsfake.stop() }
        let data = directory.path + "/data"
        let daemon = try await DaemonProcess(
            dataDirectory: data, arguments: ["--source", "gpsd", "--gpsd", "127.0.0.1:\(gpsfake.port)"])
        try await gpsfake.startFeeding()
        let store = URL(fileURLWithPath: data + "/timeline.sqlite")
        @Sendable func entries() -> [TimelineEntry] {
            (try? TimelineStore.openReadOnly(at: store).entries(from: .distantPast, to: .distantFuture)) ?? []
        }
        let arrival = try #require(openStay)
        try await waitUntil(seconds: 90) {
            entries().contains { if case .stay(let stay) = $0 { stay.isOpen && stay.start == arrival } else { false } }
        }
        _ = try await daemon.stop()
        let stored = entries()
        let closed = stored.compactMap { if case .stay(let stay) = $0, !stay.isOpen { stay } else { nil } }
        let open = stored.compactMap { if case .stay(let stay) = $0, stay.isOpen { stay } else { nil } }
        let storedTrips = stored.compactMap { if case .trip(let trip) = $0 { trip } else { nil } }
        try #require(closed.count == 1 && open.count == 1, "\(stored.map(\.jsonString))")
        Self.expectTheStop(closed[0])
        #expect(closed[0].start == expected.start && closed[0].end == expected.end)
        #expect(closed[0].fixes == expected.fixes)
        #expect(Self.metres((closed[0].latitude, closed[0].longitude), (expected.latitude, expected.longitude)) < 0.5)
        // The trip after the stop, as replay has it.
        let after = try #require(storedTrips.first { $0.from == expected.start })
        #expect(after.to == open[0].start && after.fixes == trips[1].fixes)
        #expect(abs(after.distance - trips[1].distance) < 0.5)
        Self.expectNoJitter(after, drive: Self.commute.drives[1])
        #expect(storedTrips.filter { $0.to == expected.start }.count == 1)
    }
}
