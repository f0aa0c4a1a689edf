import Foundation
import LocationTestSupport
import Testing

@testable import LocationProviders
@testable import LocationState

/// ReplayPipeline: replayed events through the daemon's coordinator, on the track's clock.
@Suite(.timeLimit(.minutes(10)))
struct ReplayPipelineTests {
    static let t0 = Date(timeIntervalSince1970: 1_778_749_200)

    static func fix(_ second: Double) -> Location {
        Location(
            time: t0.addingTimeInterval(second), mode: .threeD, lat: 52.5, lon: 13.4 + second / 1e4, source: .replay)
    }

    /// Sends `events` through a pipeline with the given batch size and returns what its listener received.
    static func changes(
        _ events: [ProviderEvent], batchSize: Int = 1024, timeout: Duration = .seconds(5)
    ) -> [LocationCoordinator.Transition] {
        let received = Locked<[LocationCoordinator.Transition]>([])
        let pipeline = ReplayPipeline(batchSize: batchSize, freshnessTimeout: timeout) { change in
            received.withLock { $0.append(change) }
        }
        for event in events { pipeline.send(event) }
        pipeline.drain()
        return received.withLock { $0 }
    }

    /// A gap of 9 s in the track, with a 5 s timeout: stale 5 s after the last fix, in track
    /// time, then live again at the next fix; all at full speed, whatever the batch size.
    @Test(arguments: [1, 1024])
    func aGapLongerThanTheTimeoutIsAStalePeriod(batchSize: Int) {
        let events: [ProviderEvent] = [
            .connected, .fix(Self.fix(0)), .fix(Self.fix(1)), .fix(Self.fix(10)), .fix(Self.fix(11)),
        ]
        let t0 = Self.t0
        let expected: [LocationCoordinator.Transition] = [
            // Before the track's first time, a status has none (not the time the replay runs).
            .status(.waitingForFix(.replay, lastFix: nil), at: nil),
            .status(.live(.replay, lastFix: t0), at: t0),
            .location(Self.fix(0)),
            .location(Self.fix(1)),
            .status(.stale(.replay, lastFix: t0.addingTimeInterval(1)), at: t0.addingTimeInterval(6)),
            .location(nil),
            .status(.live(.replay, lastFix: t0.addingTimeInterval(10)), at: t0.addingTimeInterval(10)),
            .location(Self.fix(10)),
            .location(Self.fix(11)),
        ]
        #expect(Self.changes(events, batchSize: batchSize) == expected)
    }

    /// Fixes that keep within the timeout stay live; a no-fix report and a stale period are
    /// told apart, and the stale status goes to nofix without a second nil location.
    @Test func noFixAfterAStalePeriodChangesTheStatusOnly() {
        let events: [ProviderEvent] = [
            .connected, .fix(Self.fix(0)), .fix(Self.fix(4.5)), .fix(Self.fix(9)),
            .noFix(Self.t0.addingTimeInterval(20)),
            .fix(Self.fix(21)),
        ]
        let t0 = Self.t0
        let expected: [LocationCoordinator.Transition] = [
            // Before the track's first time, a status has none (not the time the replay runs).
            .status(.waitingForFix(.replay, lastFix: nil), at: nil),
            .status(.live(.replay, lastFix: t0), at: t0),
            .location(Self.fix(0)), .location(Self.fix(4.5)), .location(Self.fix(9)),
            .status(.stale(.replay, lastFix: t0.addingTimeInterval(9)), at: t0.addingTimeInterval(14)),
            .location(nil),
            .status(.noFix(.replay, lastFix: t0.addingTimeInterval(9)), at: t0.addingTimeInterval(20)),
            .status(.live(.replay, lastFix: t0.addingTimeInterval(21)), at: t0.addingTimeInterval(21)),
            .location(Self.fix(21)),
        ]
        #expect(Self.changes(events) == expected)
    }

    /// A track that jumps back in time (the next loop) is not a gap; fixes without a time
    /// never make one.
    @Test func aJumpBackOrAMissingTimeIsNoGap() {
        var untimed = Self.fix(0)
        untimed.time = nil
        let events: [ProviderEvent] = [
            .connected, .fix(Self.fix(100)), .fix(Self.fix(0)), .fix(untimed), .fix(Self.fix(3)),
        ]
        let statuses = Self.changes(events).compactMap { change -> String? in
            if case .status(let status, _) = change { status.name } else { nil }
        }
        #expect(statuses == ["waiting", "live"])
    }

    /// A log whose first reports carry no time (no date seen yet): the status changes
    /// before the first timed one have no time, not the time the replay runs; from the
    /// first time on, the track's.
    @Test func aStatusBeforeTheTracksFirstTimeHasNone() {
        var untimed = Self.fix(0)
        untimed.time = nil
        let events: [ProviderEvent] = [.connected, .noFix(nil), .fix(untimed), .noFix(nil), .fix(Self.fix(5))]
        let statuses = Self.changes(events).compactMap { change -> String? in
            guard case .status(let status, let time) = change else { return nil }
            return "\(status.name) \(time.map { "\($0.timeIntervalSince(Self.t0))" } ?? "-")"
        }
        #expect(statuses == ["waiting -", "nofix -", "live -", "nofix -", "live 5.0"])
    }

    /// The track clock moves only forward, by the track's own steps, and wakes a sleeper
    /// once the track's time reaches its deadline.
    @Test func trackClockFollowsTheTrack() async throws {
        let clock = TrackClock(start: Self.t0)
        #expect(!clock.hasTime)
        clock.advance(to: Self.t0.addingTimeInterval(2))
        #expect(clock.hasTime)
        #expect(clock.now.offset == .seconds(2))
        clock.advance(to: Self.t0)
        #expect(clock.now.offset == .seconds(2) && clock.date == Self.t0)
        let deadline = clock.now.advanced(by: .seconds(5))
        let sleeper = Task { try await clock.sleep(until: deadline) }
        clock.advance(to: Self.t0.addingTimeInterval(4))
        clock.advance(to: Self.t0.addingTimeInterval(5))
        try await sleeper.value
        #expect(clock.now.offset == .seconds(7))
        // Corrupt times thousands of years apart neither trap nor move the clock back.
        clock.advance(to: .distantFuture)
        clock.advance(to: .distantPast)
        clock.advance(to: .distantFuture)
        #expect(clock.now.offset > .seconds(7))
    }
}
