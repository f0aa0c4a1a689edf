import Foundation
import LocationProviders
import LocationState
import LocationTestSupport
import Testing

/// A SampleTrack through a real gpsd (gpsfake) and GPSDProvider gives the fixes
/// `locationd replay` gives for the same file.
@Suite(.timeLimit(.minutes(5)))
struct GPSDSampleTrackTests {
    static let walk = URL(fileURLWithPath: Repository.sampleTrack("walk.nmea"))

    /// `locationd replay FILE --format json`, by fix time.
    static func replayed(_ file: URL) async throws -> [String: [String: Any]] {
        let run = try await runLocationd(["replay", file.path, "--format", "json", "--speed", "max"])
        #expect(run.status == 0, "\(run.stderr)")
        var fixes: [String: [String: Any]] = [:]
        for line in run.stdout.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            if let object, let time = object["time"] as? String { fixes[time] = object }
        }
        return fixes
    }

    @Test func gpsdAgreesWithReplay() async throws {
        let replayed = try await Self.replayed(Self.walk)
        #expect(replayed.count == 300)
        let gpsfake = try GPSFake(log: Self.walk, cycle: 0.01)
        defer { gpsfake.stop() }
        let events = Mailbox<ProviderEvent>()
        let provider = GPSDProvider(
            host: "127.0.0.1", port: gpsfake.port,
            backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)),
            pollInterval: .milliseconds(100))
        let task = Task { try await provider.run { events.post($0) } }
        defer { task.cancel() }

        // gpsd sends one or more reports per epoch (a TPV after GGA, another after RMC) and
        // opens the terminal mid-epoch: the daemon hands on one fix per epoch, merged by
        // EpochMerger, so the reports are merged the same way here and the first and the
        // latest epoch, which may lack a sentence, are left out.
        var merger = EpochMerger()
        var epochs: [String: Location] = [:]
        var order: [String] = []
        while order.count < 22 {
            let event = try await events.next(within: .seconds(30), "a timed fix") {
                if case .fix(let fix) = $0 { fix.time != nil } else { false }
            }
            guard case .fix(let report) = event else { continue }
            for case let fix? in merger.receive(report) {
                guard let time = fix.time else { continue }
                let key = UTCCalendar.iso8601(time)
                if epochs[key] == nil { order.append(key) }
                epochs[key] = fix
            }
        }
        for key in order.dropFirst().dropLast() {
            let fix = try #require(epochs[key])
            let expected = try #require(replayed[key], "gpsd reported a fix at \(key) that replay does not have")
            #expect(abs(fix.lat! - (expected["lat"] as! Double)) < 1e-8, "lat at \(key)")
            #expect(abs(fix.lon! - (expected["lon"] as! Double)) < 1e-8, "lon at \(key)")
            #expect(fix.status == expected["status"] as? Int, "status at \(key)")
            // Both have the value or neither has it; when both do, they agree.
            for (name, value) in [("altMSL", fix.altMSL), ("speed", fix.speed), ("track", fix.track)] {
                let want = expected[name] as? Double
                #expect(
                    (value == nil) == (want == nil), "\(name) at \(key): gpsd \(value as Any), replay \(want as Any)")
                if let value, let want { #expect(abs(value - want) < 1e-3, "\(name) at \(key)") }
            }
        }
    }

    /// What `gpspipe -r` records from gpsd, the usual way to keep a receiver's NMEA, begins
    /// with gpsd's session header (`VERSION`, `DEVICES`, `WATCH`, as JSON): replay reads the
    /// sentences after it, and gives the fixes the log gpsd was fed gives.
    @Test func aGpspipeRawRecordingReplaysAsNMEA() async throws {
        let replayed = try await Self.replayed(Self.walk)
        let gpsfake = try GPSFake(log: Self.walk, cycle: 0.01)
        defer { gpsfake.stop() }
        // gpspipe exits at once while gpsd is not yet listening.
        let recording = try await waitUntil(seconds: 90, "a recording by gpspipe -r") {
            let run = try await runProgram(
                "/usr/bin/timeout", ["60", "/usr/bin/gpspipe", "-r", "-n", "60", "127.0.0.1:\(gpsfake.port)"])
            return run.status == 0 ? run : nil
        }
        #expect(recording.stdout.hasPrefix("{\"class\":\"VERSION\""))
        let file = URL(fileURLWithPath: NSTemporaryDirectory() + "locationd-gpspipe-\(UUID().uuidString).nmea")
        try Data(recording.stdout.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let fixes = try await Self.replayed(file)
        let run = try await runLocationd(["replay", file.path, "--speed", "max"])
        #expect(run.stderr.contains("sentences read"), "\(run.stderr)")
        #expect(fixes.count >= 20, "\(run.stderr)")
        for (time, fix) in fixes {
            let expected = try #require(replayed[time], "the recording has a fix at \(time) that the log does not")
            #expect(fix["lat"] as? Double == expected["lat"] as? Double, "lat at \(time)")
            #expect(fix["lon"] as? Double == expected["lon"] as? Double, "lon at \(time)")
        }
    }
}
