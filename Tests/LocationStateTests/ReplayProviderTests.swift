import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationProviders
@testable import LocationState

/// Replays `path` as fast as possible and collects the events.
func replay(_ path: String, format: ReplayFormat? = nil) async throws -> ([ProviderEvent], ReplayStatistics) {
    var events: [ProviderEvent] = []
    let provider = ReplayProvider(path: path, options: .init(format: format, speed: nil))
    let statistics = try await provider.replay { events.append($0) }
    return (events, statistics)
}

@Suite(.timeLimit(.minutes(10)))
struct ReplayProviderTests {
    @Test func walk() async throws {
        let (events, statistics) = try await replay(Repository.sampleTrack("walk.nmea"))
        let located = fixes(events)
        #expect(events.first == .connected)
        #expect(located.count == 300)
        #expect(statistics.records == 600 && statistics[skipped: .badChecksum] == 0)
        #expect(located.allSatisfy { $0.source == .replay && $0.mode == .threeD })
        let first = try #require(located.first)
        #expect(first.time.map(UTCCalendar.iso8601) == "2026-05-14T09:00:00.000Z")
        #expect(abs((first.lat ?? 0) - 52.5145) < 1e-9 && abs((first.lon ?? 0) - 13.3501) < 1e-9)
        #expect(abs((first.speed ?? 0) - 1.4) < 1e-4)
        let seconds = located.compactMap { $0.time?.timeIntervalSince1970 }
        #expect(zip(seconds, seconds.dropFirst()).allSatisfy { $1 - $0 == 1 })
    }

    @Test func driveCrossesMidnightIntoANewMonth() async throws {
        let located = fixes(try await replay(Repository.sampleTrack("drive.nmea")).0)
        #expect(located.count == 600)
        #expect(located.first?.time.map(UTCCalendar.iso8601) == "2026-06-30T23:55:00.000Z")
        #expect(located.last?.time.map(UTCCalendar.iso8601) == "2026-07-01T00:04:59.000Z")
        #expect(abs((located.map { $0.speed ?? 0 }.max() ?? 0) - 25) < 1e-3)
    }

    @Test func fixLossLeavesAGap() async throws {
        let (events, _) = try await replay(Repository.sampleTrack("fix-loss.nmea"))
        let located = fixes(events)
        #expect(located.count == 200)
        let seconds = located.compactMap { $0.time.map { Int($0.timeIntervalSince1970) - 1_770_087_600 } }
        #expect(seconds == Array(0..<100) + Array(140..<240))
        let noFixTimes = events.compactMap { event -> Int? in
            if case .noFix(let time) = event { time.map { Int($0.timeIntervalSince1970) - 1_770_087_600 } } else { nil }
        }
        #expect(!noFixTimes.isEmpty && noFixTimes.allSatisfy { (100..<140).contains($0) })
        #expect(located.allSatisfy { ($0.lat ?? 0) < 0 && ($0.lon ?? 0) > 0 })
    }

    @Test func antimeridianFlipsTheLongitudeSign() async throws {
        let located = fixes(try await replay(Repository.sampleTrack("antimeridian.nmea")).0)
        #expect(located.count == 200)
        let longitudes = located.compactMap(\.lon)
        let flip = try #require(longitudes.firstIndex { $0 < 0 })
        #expect(flip > 0 && flip < 199)
        #expect(longitudes[..<flip].allSatisfy { $0 > 179.99 && $0 <= 180 })
        #expect(longitudes[flip...].allSatisfy { $0 < -179.98 && $0 >= -180 })
        // Speed from RMC stays 10 m/s across the line: no 40,000 km jump.
        #expect(located.allSatisfy { abs(($0.speed ?? 0) - 10) < 1e-3 })
    }

    @Test func northPoleIsCrossed() async throws {
        let located = fixes(try await replay(Repository.sampleTrack("north-pole.nmea")).0)
        #expect(located.count == 400)
        let latitudes = located.compactMap(\.lat)
        #expect(latitudes.allSatisfy { $0 > 89.99 && $0 <= 90 })
        #expect((latitudes.max() ?? 0) > 89.9999)
        #expect(located.first?.lon == 0 && located.last?.lon == 180)
        #expect(located.last?.track == 180)
    }

    @Test func corruptTrackIsReadWithCounts() async throws {
        let (events, statistics) = try await replay(Repository.sampleTrack("corrupt.nmea"))
        #expect(fixes(events).count == 119)
        #expect(statistics[skipped: .badChecksum] == 12)
        #expect(statistics[skipped: .unknown] == 24)
        #expect(statistics[skipped: .malformed] == 12)
        #expect(statistics[skipped: .droppedLine] == 13)
        #expect(statistics[skipped: .comment] == 2)
        let walk = fixes(try await replay(Repository.sampleTrack("walk.nmea")).0)
        let positions = Set(walk.prefix(120).map { "\($0.lat!),\($0.lon!)" })
        #expect(fixes(events).allSatisfy { positions.contains("\($0.lat!),\($0.lon!)") })
    }

    @Test func missingFileAndDirectoryThrow() async {
        await #expect(throws: LocationError.fileNotFound(path: "/nonexistent/track.nmea")) {
            _ = try await replay("/nonexistent/track.nmea")
        }
        await #expect(throws: LocationError.self) { _ = try await replay(NSTemporaryDirectory()) }
    }

    @Test func formatIsDetected() {
        #expect(ReplayFormat.detect(Array("# comment\n$GPGGA,".utf8)) == .nmea)
        #expect(ReplayFormat.detect(Array("\n{\"class\":\"VERSION\"}".utf8)) == .json)
        // gpsd's session header, as gpspipe writes it before NMEA (-r) or reports (-w).
        let header =
            "{\"class\":\"VERSION\",\"release\":\"3.22\"}\n{\"class\":\"DEVICES\",\"devices\":[]}\n"
            + "{\"class\":\"WATCH\",\"enable\":true}\r\n"
        #expect(ReplayFormat.detect(Array((header + "$GPRMC,090036.000,A").utf8)) == .nmea)
        #expect(ReplayFormat.detect(Array((header + "{\"class\":\"TPV\"").utf8)) == .json)
        #expect(ReplayFormat.detect(Array(header.utf8)) == .json)
        #expect(ReplayFormat.detect(Array("{\"class\":\"VERSIONS\"}\n$GPGGA".utf8)) == .json)
        #expect(ReplayFormat.detect(Array("\u{FEFF}<?xml version=\"1.0\"?>".utf8)) == .gpx)
        #expect(ReplayFormat.detect([0xB5, 0x62, 0x01]) == .nmea)
        // UTF-16, with its byte order mark or without, either byte order.
        let xml = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>"
        let little = xml.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let big = xml.utf16.flatMap { unit -> [UInt8] in [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        #expect(ReplayFormat.detect([0xFF, 0xFE] + little) == .gpx)
        #expect(ReplayFormat.detect([0xFE, 0xFF] + big) == .gpx)
        #expect(ReplayFormat.detect(big) == .gpx)
    }

    @Test func pacingFollowsRecordedTimes() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let provider = ReplayProvider(path: Repository.sampleTrack("walk.nmea"), options: .init(speed: 600))
        var count = 0
        _ = try await provider.replay { if case .fix = $0 { count += 1 } }
        let elapsed = clock.now - start
        // 299 s of recording at 600x: about half a second, never less.
        #expect(count == 300)
        #expect(elapsed >= .milliseconds(490))
    }

    /// The walk (300 fixes) played in a loop goes round until its task is cancelled, here from
    /// inside, at the 700th fix: the loop ends within the round it was cancelled in. (Counted
    /// in the provider's own callback: a consumer on the pool could wait for a thread while the
    /// loop, which never suspends at full speed, queued fixes without end.)
    @Test func loopPlaysAgainUntilCancelled() async throws {
        let provider = ReplayProvider(path: Repository.sampleTrack("walk.nmea"), options: .init(speed: nil, loop: true))
        let seen = Locked(0)
        let task = Task {
            try await provider.run { event in
                guard case .fix = event else { return }
                if seen.withLock({ count in
                    count += 1
                    return count
                }) == 700 {
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
        }
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect((700..<900).contains(seen.withLock { $0 }))
    }

    /// Several files play one after the other as one track: each file's reports in order, a
    /// segment break (`.noFix(nil)`) before each file that follows one with fixes, none
    /// before the first fix, and `fileEnded` between the files; each file counted on its
    /// own, whatever its format.
    @Test func filesPlayOneAfterTheOtherAsOneTrack() async throws {
        try await withTemporaryDirectory { directory in
            let empty = directory + "/empty.nmea"
            try Data().write(to: URL(fileURLWithPath: empty))
            let walk = Repository.sampleTrack("walk.nmea")
            let gpx = directory + "/point.gpx"
            try Data(
                """
                <?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">\
                <trk><trkseg><trkpt lat="47.5" lon="8.5"><time>2026-05-14T10:00:00Z</time></trkpt></trkseg></trk></gpx>
                """.utf8
            ).write(to: URL(fileURLWithPath: gpx))
            let provider = ReplayProvider(paths: [empty, walk, gpx], options: .init(speed: nil))
            var events: [ProviderEvent] = []
            var ends: [(file: Int, events: Int)] = []
            let statistics = try await provider.replayFiles({ events.append($0) }) { ends.append(($0, events.count)) }

            #expect(ends.map(\.file) == [0, 1, 2])
            #expect(ends.map(\.events) == [1, 301, 303])
            #expect(events.first == .connected)
            #expect(fixes(Array(events[1..<301])).count == 300)
            #expect(events[301] == .noFix(nil))
            let last = try #require(fixes([events[302]]).first)
            #expect(last.lat == 47.5 && last.time.map(UTCCalendar.iso8601) == "2026-05-14T10:00:00.000Z")
            #expect(statistics.map(\.records) == [0, 600, 1])
            #expect(statistics.map(\.fixes) == [0, 300, 1])
            #expect(statistics.map(\.record) == [.sentence, .sentence, .trackPoint])
            let total = try await provider.replay { _ in }
            #expect(total.records == 601 && total.fixes == 301)
        }
    }

    /// A file that is missing or a directory, anywhere in the list, ends the replay before
    /// any report, with the error that names it.
    @Test func aBadFileAnywhereEndsTheReplayBeforeAnyFix() async throws {
        let walk = Repository.sampleTrack("walk.nmea")
        for bad in ["/nonexistent/track.nmea", NSTemporaryDirectory()] {
            var events: [ProviderEvent] = []
            let provider = ReplayProvider(paths: [walk, walk, bad], options: .init(speed: nil))
            await #expect {
                _ = try await provider.replayFiles { events.append($0) }
            } throws: { error in
                (error as? LocationError).map { "\($0)".contains(bad) } ?? false
            }
            #expect(events.isEmpty)
        }
    }
}
