import Foundation
import LocationProviders
import LocationState
import LocationStores
import LocationTestSupport
import Testing

/// The freshness reducer, every status against every event, without threads or clocks.
@Suite(.timeLimit(.minutes(10)))
struct StatusReducerTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_000_000)
    static let t1 = t0.addingTimeInterval(1)
    static let fix = Location(time: t1, mode: .threeD, lat: 48.1, lon: 11.5, source: .gpsd)
    static let untimedFix = Location(mode: .twoD, lat: 48.1, lon: 11.5, source: .gpsd)
    static let simulatedFix = Location(time: t1, mode: .twoD, lat: 1, lon: 2, source: .simulated)
    static let positionless = Location(time: t1, mode: .noFix, source: .gpsd)

    /// One status of each case, with and without a last fix where both are possible.
    static let statuses: [ProviderStatus] = [
        .connecting(.gpsd),
        .restored(.gpsd, lastFix: t0),
        .waitingForFix(.gpsd, lastFix: nil),
        .waitingForFix(.gpsd, lastFix: t0),
        .live(.gpsd, lastFix: t0),
        .live(.simulated, lastFix: t0),
        .noFix(.gpsd, lastFix: nil),
        .noFix(.gpsd, lastFix: t0),
        .stale(.gpsd, lastFix: t0),
        .lost(.gpsd, reason: "gone", lastFix: nil),
        .lost(.gpsd, reason: "gone", lastFix: t0),
    ]

    /// One event of each case, with the fix variants that matter.
    static let events: [FreshnessEvent] = [
        .fix(fix),
        .fix(untimedFix),
        .fix(simulatedFix),
        .fix(positionless),
        .noFix,
        .timeoutElapsed,
        .providerLost(reason: "gpsd went away"),
        .providerBack,
        .restoredFix(Location(time: t0, mode: .threeD, lat: 1, lon: 2, source: .restored)),
        .restoredFix(Location(mode: .threeD, lat: 1, lon: 2, source: .restored)),
    ]

    static let allPairs = statuses.flatMap { status in events.map { (status, $0) } }

    @Test(arguments: allPairs)
    func transition(from status: ProviderStatus, on event: FreshnessEvent) {
        let next = ProviderStatus.reduce(status, event)
        switch event {
        case .fix(let location) where location.hasPosition:
            // The fix's own time; a fix without one keeps the last fix time known.
            #expect(next == .live(location.source, lastFix: location.time ?? status.lastFix))
        case .fix, .noFix:
            #expect(next == .noFix(status.source, lastFix: status.lastFix))
        case .timeoutElapsed:
            if case .live(let source, let lastFix) = status {
                #expect(next == .stale(source, lastFix: lastFix))
            } else {
                #expect(next == status)
            }
        case .providerLost(let reason):
            #expect(next == .lost(status.source, reason: reason, lastFix: status.lastFix))
        case .providerBack:
            #expect(next.isConnected)
            #expect(next.source == status.source && next.lastFix == status.lastFix)
            if status.isConnected {
                #expect(next == status)
            } else {
                #expect(next == .waitingForFix(status.source, lastFix: status.lastFix))
            }
        case .restoredFix(let location):
            if case .connecting(let source) = status, let time = location.time {
                #expect(next == .restored(source, lastFix: time))
            } else {
                #expect(next == status)
            }
        }
    }

    @Test(arguments: allPairs)
    func onlyAFixMakesTheStatusLive(from status: ProviderStatus, on event: FreshnessEvent) {
        let next = ProviderStatus.reduce(status, event)
        let isFixWithPosition = if case .fix(let location) = event { location.hasPosition } else { false }
        // Only "provider back" and a restored fix leave a live status as it is.
        let leavesStatusAlone = if case .restoredFix = event { true } else { event == .providerBack }
        #expect(next.isLive == (isFixWithPosition || (status.isLive && leavesStatusAlone)))
    }

    @Test func aDayInTheLife() {
        let steps: [(FreshnessEvent, ProviderStatus)] = [
            (
                .restoredFix(Location(time: Self.t0, mode: .threeD, lat: 1, lon: 2, source: .restored)),
                .restored(.gpsd, lastFix: Self.t0)
            ),
            (.providerBack, .waitingForFix(.gpsd, lastFix: Self.t0)),
            (.noFix, .noFix(.gpsd, lastFix: Self.t0)),
            (.fix(Self.fix), .live(.gpsd, lastFix: Self.t1)),
            (.timeoutElapsed, .stale(.gpsd, lastFix: Self.t1)),
            (.timeoutElapsed, .stale(.gpsd, lastFix: Self.t1)),
            (.providerLost(reason: "killed"), .lost(.gpsd, reason: "killed", lastFix: Self.t1)),
            (.fix(Self.simulatedFix), .live(.simulated, lastFix: Self.t1)),
            // A fix without a time: live, and the last fix time is still the last fix's own.
            (.fix(Self.untimedFix), .live(.gpsd, lastFix: Self.t1)),
            (.timeoutElapsed, .stale(.gpsd, lastFix: Self.t1)),
        ]
        var status = ProviderStatus.connecting(.gpsd)
        for (event, expected) in steps {
            status = ProviderStatus.reduce(status, event)
            #expect(status == expected, "after \(event)")
        }
    }

    @Test func derivedProperties() {
        #expect(ProviderStatus.connecting(.gpsd).lastFix == nil)
        #expect(!ProviderStatus.connecting(.gpsd).isConnected)
        #expect(!ProviderStatus.restored(.gpsd, lastFix: Self.t0).isConnected)
        #expect(!ProviderStatus.lost(.gpsd, reason: "x", lastFix: Self.t0).isConnected)
        #expect(ProviderStatus.stale(.gpsd, lastFix: Self.t0).isConnected)
        #expect(ProviderStatus.noFix(.replay, lastFix: nil).source == .replay)
        #expect(ProviderStatus.live(.simulated, lastFix: Self.t0).isLive)
        #expect(!ProviderStatus.stale(.gpsd, lastFix: Self.t0).isLive)
    }

    @Test func logLines() {
        let live = ProviderStatus.live(.gpsd, lastFix: Self.t0)
        #expect(ProviderStatus.live(.gpsd, lastFix: Self.t1).logLine(after: live) == nil)
        #expect(ProviderStatus.stale(.gpsd, lastFix: Self.t0).logLine(after: live)?.level == .warning)
        #expect(live.logLine(after: .stale(.gpsd, lastFix: Self.t0))?.level == .info)
        let switched = ProviderStatus.live(.simulated, lastFix: Self.t1).logLine(after: live)
        #expect(switched?.level == .notice)
        #expect(switched?.message.contains("simulated") == true)
        #expect(ProviderStatus.lost(.gpsd, reason: "x", lastFix: nil).logLine(after: live) == nil)
        #expect(ProviderStatus.noFix(.gpsd, lastFix: nil).logLine(after: .noFix(.gpsd, lastFix: nil)) == nil)
    }
}
