import Foundation
import LocationProviders
import LocationState
import LocationTestSupport
import Testing

/// Impossible values from every source end at the validation before the state: no trap,
/// no impossible fix printed, stored or logged as tiles.
@Suite(.timeLimit(.minutes(5)))
struct ImpossibleFixTests {
    /// gpsd JSON reports with times and coordinates no format can write, and one good fix.
    static let reports =
        [
            #"{"class":"TPV","mode":3,"time":1e19,"lat":52,"lon":13}"#,
            #"{"class":"TPV","mode":3,"time":9.3e18,"lat":52,"lon":13}"#,
            #"{"class":"TPV","mode":3,"time":1e308,"lat":52,"lon":13}"#,
            #"{"class":"TPV","mode":3,"time":-1e308,"lat":52,"lon":13}"#,
            #"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:00Z","lat":1e308,"lon":1e308}"#,
            #"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:01Z","lat":52,"lon":13,"altMSL":1e308,"speed":-4}"#,
        ].joined(separator: "\n") + "\n"

    /// Every output format: exit 0, the one possible fix printed, the rest counted.
    @Test(arguments: ["json", "text", "geojson", "gpx"])
    func aReplayOfImpossibleReportsEndsWell(_ format: String) async throws {
        let path = try temporaryFile(Array(Self.reports.utf8), suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", format])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stdout.contains("1e+308") && !run.stdout.contains("1e308") && !run.stdout.contains("9999-"))
        #expect(run.stdout.contains("52"))
        #expect(
            run.stderr.contains(
                "6 reports read, 2 fixes, 0 reports of other classes, 4 malformed, 0 lines dropped, "
                    + "1 impossible fix rejected (lat 1), 2 fields dropped (altMSL 1, speed 1)"), "\(run.stderr)")
    }

    /// A GPX file whose times are all impossible (1901, as a converter wrote them): the time
    /// is optional in GPX, so each is dropped, counted once in the summary, and every
    /// position is kept, as gpxpy and GPX viewers keep them.
    @Test func gpxPointsWithImpossibleTimesKeepTheirPositions() async throws {
        var gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">"#
        gpx += "<trk><trkseg>"
        for index in 0..<184 {
            gpx += #"<trkpt lat="\#(46.5 + Double(index) * 0.0001)" lon="7.9"><ele>2000</ele>"#
            gpx += "<time>1901-06-01T10:\(String(format: "%02d:%02d", index / 60, index % 60))Z</time></trkpt>"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let path = try temporaryFile(Array(gpx.utf8), suffix: ".gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "json"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 184, "\(run.stdout.prefix(300))")
        #expect(lines.allSatisfy { $0.contains(#""lat":46.5"#) && !$0.contains("1901") })
        #expect(
            run.stderr.contains("184 track points read, 184 fixes, 184 impossible times dropped (positions kept)"),
            "\(run.stderr)")
        #expect(!run.stderr.contains("rejected"), "\(run.stderr)")
    }

    /// With `--data-dir`, the stores get the possible fix only.
    @Test func theStoresGetNoImpossibleFix() async throws {
        let path = try temporaryFile(Array(Self.reports.utf8), suffix: ".json")
        let directory = NSTemporaryDirectory() + "locationd-impossible-\(UUID().uuidString)"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: directory)
        }
        let run = try await runLocationd(["replay", path, "--speed", "max", "--data-dir", directory])
        #expect(run.status == 0, "\(run.stderr)")
        let stored = try String(contentsOfFile: directory + "/lastFix.json", encoding: .utf8)
        #expect(stored.contains(#""lat":52"#) && stored.contains(#""lon":13"#))
        #expect(!stored.contains("altMSL") && !stored.contains("speed"))
        let tiles = try await runLocationd(["tiles", "--data-dir", directory])
        #expect(tiles.status == 0)
        #expect(!tiles.stdout.contains("13471"), "\(tiles.stdout)")
    }

    /// A real gpsd passes an absurd altitude through (it checks only that the position is
    /// finite and in range, and speed and climb below 10 km/s); the validation drops it
    /// from the fix and keeps the rest.
    @Test func anAbsurdAltitudeFromGPSDIsDropped() async throws {
        var sentences: [String] = []
        for epoch in 0..<40 {
            let time = String(format: "12%02d%02d.00", epoch / 60, epoch % 60)
            sentences.append(
                TestTrack.sentence("GPGGA,\(time),4807.0380,N,01131.0000,E,1,08,0.9,99999999.9,M,46.9,M,,"))
            sentences.append(TestTrack.sentence("GPGSA,A,3,04,05,09,12,17,20,24,25,,,,,1.8,0.9,1.5"))
            sentences.append(TestTrack.sentence("GPRMC,\(time),A,4807.0380,N,01131.0000,E,000.0,045.0,221126,,,A"))
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locationd-absurd-altitude-\(UUID().uuidString).nmea")
        try (sentences.joined(separator: "\r\n") + "\r\n").write(to: url, atomically: true, encoding: .ascii)
        defer { try? FileManager.default.removeItem(at: url) }
        let gpsfake = try GPSFake(log: url, once: true)
        defer { gpsfake.stop() }
        let coordinator = LocationCoordinator(freshnessTimeout: .seconds(60))
        let fixes = Locked<[Location]>([])
        let subscription = coordinator.deviceLocation.observe(on: DispatchQueue(label: "test")) { change in
            if let fix = change.new { fixes.withLock { $0.append(fix) } }
        }
        defer { subscription.cancel() }
        let log = CapturedLog()
        let provider = GPSDProvider(
            host: "127.0.0.1", port: gpsfake.port,
            backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)), logger: log.logger())
        let task = Task { try await coordinator.run(provider) }
        defer { task.cancel() }
        try await gpsfake.explaining(log) {
            // Generous: gpsd takes its time to recognise the device on a machine that is building.
            try await waitUntil(seconds: 90) { coordinator.status.value.isConnected }
            try await gpsfake.startFeeding()
            try await waitUntil(seconds: 90) { fixes.withLock { $0.count } >= 5 }
        }
        let seen = fixes.withLock { $0 }
        #expect(seen.allSatisfy { $0.altMSL == nil && $0.altHAE == nil })
        #expect(seen.allSatisfy { abs($0.lat! - (48 + 7.038 / 60)) < 1e-9 && $0.mode == .threeD })
        #expect((coordinator.validationCounts.dropped["altMSL"] ?? 0) >= 1)
    }
}
