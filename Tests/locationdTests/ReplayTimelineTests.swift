import Foundation
import LocationTestSupport
import Testing

/// `locationd replay --timeline` as a user runs it: the real binary on generated GPX files.
@Suite(.timeLimit(.minutes(5)))
struct ReplayTimelineTests {
    /// Parked for an hour with a receiver's jitter: no trip, no distance, one stay (open at the
    /// end, so printed as no closed stay and named in the summary).
    @Test(arguments: [UInt64(3), 7, 12])
    func parkedForAnHour(seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        var track = GeneratedTrack(seed: seed * 4)
        track.stay(seconds: 3600)
        let path = directory.path + "/parked.gpx"
        try track.gpx.write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "json", "--timeline"])
        #expect(run.status == 0)
        #expect(!run.stdout.contains(#""class":"TRIP""#) && !run.stdout.contains(#""class":"STAY""#))
        #expect(run.stderr.contains("timeline: 0 stays, 0 trips (0 m); at the end, a stay since"), "\(run.stderr)")
    }

    /// 1,200 good fixes (a stay, a drive, a stay, a drive) after one dated 2099, and the same
    /// with another in the middle: the stays and trips of the good fixes alone, the
    /// misdated fixes named in the summary.
    @Test func futureFixesCostOneFixEach() async throws {
        let directory = try TemporaryDirectory()
        func track(misdated: Bool) -> GeneratedTrack {
            // One fix a second.
            var track = GeneratedTrack(seed: 0)
            if misdated { track.misdated(4_070_908_800) }
            track.stay(seconds: 400)
            track.move(metres: 2000, speed: 10)
            if misdated { track.misdated(4_070_908_800) }
            track.stay(seconds: 400)
            track.move(metres: 2000, speed: 10)
            return track
        }
        func replay(_ track: GeneratedTrack, _ name: String) async throws -> (lines: [Substring], summary: String) {
            let path = directory.path + "/" + name
            try track.gpx.write(toFile: path, atomically: true, encoding: .utf8)
            let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "json", "--timeline"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").filter {
                $0.hasPrefix(#"{"class":"STAY""#) || $0.hasPrefix(#"{"class":"TRIP""#)
            }
            return (lines, run.stderr)
        }
        let good = try await replay(track(misdated: false), "good.gpx")
        let bad = try await replay(track(misdated: true), "bad.gpx")
        #expect(track(misdated: false).points.count == 1200)
        #expect(good.lines.count == 3, "\(good.lines)")
        #expect(bad.lines.map { $0.prefix(12) } == good.lines.map { $0.prefix(12) }, "\(bad.lines) \(bad.summary)")
        // The trip between the stays is the same trip (the first stay, which the first
        // misdated fix made start two fixes later, is what it comes from).
        func trip(_ lines: [Substring]) -> [String] {
            lines.filter { $0.contains("TRIP") }.map { String($0).replacing(/"from":"[^"]*",/, with: "") }
        }
        #expect(trip(bad.lines) == trip(good.lines))
        #expect(bad.lines.last == good.lines.last)
        #expect(bad.summary.contains("timeline: 2 stays, 1 trips"), "\(bad.summary)")
        #expect(bad.summary.contains("misdated"), "\(bad.summary)")
    }

    /// A threshold that is 0, negative, not a number or absurd: one line naming it, exit 64.
    @Test(arguments: [
        ("--stay-distance", "0"), ("--stay-distance", "-5"), ("--stay-distance", "nan"), ("--stay-distance", "1e12"),
        ("--stay-duration", "0"), ("--stay-gap", "inf"), ("--max-speed", "-1"), ("--stay-duration", "five"),
    ])
    func badThresholdIsRefused(flag: String, value: String) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/track.gpx"
        try GeneratedTrack(seed: 1).gpx.write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await runLocationd(["replay", path, "--timeline", flag, value])
        #expect(run.status == 64)
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.stderr.contains(flag) && run.stderr.contains("'\(value)'"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    /// In text, a stay and the trip after it as lines after the fixes that closed them.
    @Test func textLines() async throws {
        let directory = try TemporaryDirectory()
        var track = GeneratedTrack(seed: 4)
        track.stay(seconds: 600)
        track.move(metres: 3000, speed: 10)
        track.stay(seconds: 600)
        track.move(metres: 3000, speed: 10)
        let path = directory.path + "/track.gpx"
        try track.gpx.write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await runLocationd(["replay", path, "--speed", "max", "--timeline"])
        #expect(run.status == 0)
        let lines = run.stdout.split(separator: "\n").filter { $0.contains(" STAY ") || $0.contains(" TRIP ") }
        #expect(lines.count == 3, "\(lines)")
        #expect(lines.first?.contains(" STAY ") == true && lines.last?.contains(" STAY ") == true)
        #expect(lines.dropFirst().first?.contains(" km until ") == true)
    }

    /// A stay that a gap drops after the trip reached it: a DROP line after the TRIP names
    /// it, no STAY line comes for it, and every other trip's `to` is a printed stay.
    @Test func gapWithdrawsTheStayTheTripReached() async throws {
        let directory = try TemporaryDirectory()
        var track = GeneratedTrack(seed: 4)
        track.stay(seconds: 600)
        track.move(metres: 3000, speed: 10)
        track.stay(seconds: 600)
        track.gap(seconds: 1200)
        track.stay(seconds: 600)
        track.move(metres: 3000, speed: 10)
        track.stay(seconds: 600)
        track.move(metres: 1000, speed: 10)
        let path = directory.path + "/track.gpx"
        try track.gpx.write(toFile: path, atomically: true, encoding: .utf8)
        let run = try await runLocationd(["replay", path, "--speed", "max", "--format", "json", "--timeline"])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").compactMap { line -> [String: Any]? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                ["STAY", "TRIP", "DROP"].contains(object["class"] as? String)
            else { return nil }
            return object
        }
        let classes = lines.map { $0["class"] as? String ?? "" }
        #expect(classes == ["STAY", "TRIP", "DROP", "STAY", "TRIP", "STAY"], "\(classes)")
        let stays = Set(lines.filter { $0["class"] as? String == "STAY" }.compactMap { $0["start"] as? String })
        let dropped = try #require(lines.first { $0["class"] as? String == "DROP" }?["start"] as? String)
        let tos = lines.filter { $0["class"] as? String == "TRIP" }.compactMap { $0["to"] as? String }
        #expect(tos.first == dropped && !stays.contains(dropped))
        #expect(tos.dropFirst().allSatisfy(stays.contains), "\(tos) \(stays)")
        #expect(run.stderr.contains("timeline: 3 stays, 2 trips"), "\(run.stderr)")
    }
}
