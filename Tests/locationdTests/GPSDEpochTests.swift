import Foundation
import LocationProviders
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// A real gpsd (gpsfake) that reports twice an epoch, after GGA and after RMC, and once
/// an epoch whose receiver skipped a sentence: the daemon's chain (GPSDProvider, the
/// coordinator, Epochs run by EpochService) shows every report in `deviceLocation` and one
/// fix per epoch, with the receiver's speed and course, in "epochLocation".
@Suite(.timeLimit(.minutes(5)))
struct GPSDEpochTests {
    /// The epoch number of a fix of `TestTrack` (its epochs start at 12:00:00, one a second).
    static func epoch(of fix: Location) -> Int {
        Int(fix.time!.timeIntervalSince1970.rounded()) % 86_400 - 12 * 3600
    }

    @Test func oneFixPerEpochWithTheReceiversSpeedAndCourse() async throws {
        let track = TestTrack(epochs: 120, rmcSkippedEvery: 10, ggaSkippedEvery: 7)
        let gpsfake = try GPSFake(log: try track.write(), cycle: 0.01)
        defer { gpsfake.stop() }
        let coordinator = LocationCoordinator(freshnessTimeout: .seconds(30))
        let queue = DispatchQueue(label: "locationd.test.listeners")
        let epochs = Epochs()
        let reports = Mailbox<Location>()
        let fixes = Mailbox<Location>()
        let reportObservation = coordinator.deviceLocation.observe(on: queue, policy: .all) {
            if let fix = $0.new { reports.post(fix) }
        }
        let fixObservation = epochs.epochLocation.observe(on: queue, policy: .all) {
            if let fix = $0.new, fix.time != nil { fixes.post(fix) }
        }
        defer {
            reportObservation.cancel()
            fixObservation.cancel()
        }
        let service = Task {
            try await EpochService(epochs: epochs, deviceLocation: coordinator.deviceLocation, queue: queue).run()
        }
        defer { service.cancel() }
        let log = CapturedLog()
        let provider = GPSDProvider(
            host: "127.0.0.1", port: gpsfake.port,
            backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)),
            pollInterval: .milliseconds(100), logger: log.logger())
        let source = Task { try await coordinator.run(provider) }
        defer { source.cancel() }

        try await gpsfake.explaining(log) {
            // gpsd reports an epoch with an RMC twice once it has learnt GGA as a cycle ender:
            // first without a course, with a speed of its own.
            let early = try await reports.next(within: .seconds(60), "a report after GGA, without a course") {
                $0.time != nil && $0.track == nil && !track.hasNoRMC(epoch: Self.epoch(of: $0))
            }
            #expect(early.speed.map { abs($0 - 12 * 1852 / 3600) > 0.5 } ?? true, "gpsd's own speed")
            // The epoch fixes from two epochs on, past any epoch of the learning.
            let start = try await fixes.next(within: .seconds(30), "a fix two epochs later") {
                Self.epoch(of: $0) == (Self.epoch(of: early) + 2) % track.points.count
            }
            var previous = start
            for _ in 0..<25 {
                let fix = try await fixes.next(within: .seconds(30), "the next epoch's fix")
                let epoch = Self.epoch(of: fix)
                #expect(fix.time != previous.time, "epoch \(epoch) handed on twice")
                #expect(track.contains(lat: fix.lat!, lon: fix.lon!))
                if track.hasNoGGA(epoch: epoch) {
                    #expect(fix.altMSL == nil, "epoch \(epoch) has no GGA: its one report, after RMC")
                }
                if track.hasNoRMC(epoch: epoch) {
                    #expect(fix.track == nil, "epoch \(epoch) has no RMC")
                } else {
                    #expect(fix.track == 45, "epoch \(epoch): the receiver's course")
                    #expect(abs(fix.speed! - 12 * 1852 / 3600) < 0.01, "epoch \(epoch): the receiver's speed")
                }
                previous = fix
            }
        }
    }
}
