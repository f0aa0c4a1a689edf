import Foundation
import LocationProviders
import LocationState
import LocationTestSupport
import Testing

/// One fix per epoch from gpsd's reports, without threads or clocks.
@Suite(.timeLimit(.minutes(10)))
struct EpochMergerTests {
    static let t0 = Date(timeIntervalSince1970: 1_795_000_000)

    /// gpsd's TPV after GGA: position, altitude, a speed gpsd computed, no course.
    static func afterGGA(_ second: Int, computedSpeed: Double = 16.3) -> Location {
        Location(
            time: t0.addingTimeInterval(Double(second)), mode: .threeD, lat: 44.0688, lon: -121.3143, altMSL: 1131,
            speed: computedSpeed, eph: 98.8, satellitesUsed: 4, source: .gpsd)
    }

    /// gpsd's TPV after RMC in the same epoch: the receiver's speed and course added.
    static func afterRMC(_ second: Int) -> Location {
        var fix = afterGGA(second)
        fix.speed = 0.062
        fix.track = 0
        return fix
    }

    /// gpsd's only TPV of an epoch whose receiver skipped its GGA: after RMC, with the
    /// receiver's speed and course but no altitude (the fix was emptied when RMC's new time
    /// started the cycle).
    static func rmcWithoutGGA(_ second: Int) -> Location {
        var fix = afterRMC(second)
        fix.altMSL = nil
        return fix
    }

    /// Feeds `values` in order; returns everything handed on.
    static func run(_ merger: inout EpochMerger, _ values: [Location?]) -> [Location?] {
        values.flatMap { merger.receive($0) }
    }

    /// The first epoch waits for the next one (its count of reports is unknown); from then
    /// on a one-report epoch is handed on with its report.
    @Test func oneReportPerEpochIsHandedOnAtOnceOnceLearnt() {
        var merger = EpochMerger()
        #expect(merger.receive(Self.afterRMC(0)).isEmpty)
        #expect(merger.receive(Self.afterRMC(1)) == [Self.afterRMC(0), Self.afterRMC(1)])
        #expect(merger.receive(Self.afterRMC(2)) == [Self.afterRMC(2)])
        #expect(merger.expectedReports == 1)
        #expect(!merger.isHolding)
    }

    /// Two reports an epoch: one fix each, at the second report, with the receiver's speed
    /// and course, never the speed gpsd computed after GGA.
    @Test func twoReportsPerEpochBecomeOneFixWithTheReceiversSpeed() {
        var merger = EpochMerger()
        let learnt = Self.run(&merger, [Self.afterGGA(0), Self.afterRMC(0), Self.afterGGA(1)])
        #expect(learnt == [Self.afterRMC(0)])
        #expect(merger.expectedReports == 2)
        #expect(merger.receive(Self.afterRMC(1)) == [Self.afterRMC(1)])
        for second in 2..<20 {
            #expect(merger.receive(Self.afterGGA(second)).isEmpty, "held after the first report of \(second)")
            let handed = merger.receive(Self.afterRMC(second))
            #expect(handed.count == 1)
            #expect(handed.first??.speed == 0.062)
            #expect(handed.first??.track == 0)
        }
    }

    /// The later report's fields win; what it lacks comes from the earlier one.
    @Test func laterReportsCompleteEarlierOnes() {
        var later = Location(time: Self.t0, mode: .threeD, lat: 1, lon: 2, speed: 3, track: 4, source: .gpsd)
        later.device = nil
        let earlier = Location(
            time: Self.t0, mode: .twoD, status: 2, lat: 1.5, lon: 2.5, altMSL: 100, speed: 9, eph: 5,
            satellitesUsed: 7, hdop: 0.9, source: .gpsd, device: "/dev/ttyACM0")
        let merged = later.completing(earlier)
        #expect(
            merged
                == Location(
                    time: Self.t0, mode: .threeD, status: 2, lat: 1, lon: 2, altMSL: 100, speed: 3, track: 4, eph: 5,
                    satellitesUsed: 7, hdop: 0.9, source: .gpsd, device: "/dev/ttyACM0"))
    }

    /// An epoch short of its reports (a skipped RMC) is handed on with the next epoch's first
    /// report, as it is, and does not lower the count expected.
    @Test func aShortEpochIsHandedOnWithTheNextReport() {
        var merger = EpochMerger()
        _ = Self.run(&merger, [Self.afterGGA(0), Self.afterRMC(0), Self.afterGGA(1), Self.afterRMC(1)])
        #expect(merger.receive(Self.afterGGA(2)).isEmpty)
        #expect(merger.receive(Self.afterGGA(3)) == [Self.afterGGA(2)])
        #expect(merger.receive(Self.afterRMC(3)) == [Self.afterRMC(3)])
        #expect(merger.expectedReports == 2)
    }

    /// No fix (nil) hands on the epoch held, then nil; a flush hands on the epoch held.
    @Test func nilAndFlushHandOnTheHeldEpoch() {
        var merger = EpochMerger()
        _ = Self.run(&merger, [Self.afterGGA(0), Self.afterRMC(0), Self.afterGGA(1), Self.afterRMC(1)])
        #expect(merger.receive(Self.afterGGA(2)).isEmpty)
        #expect(merger.receive(nil) == [Self.afterGGA(2), nil])
        #expect(merger.receive(Self.afterGGA(3)).isEmpty)
        #expect(merger.flush() == Self.afterGGA(3))
        #expect(merger.flush() == nil)
    }

    /// A receiver that starts sending one more report an epoch (gpsd learning a cycle ender):
    /// the count rises, and the epoch already handed on is not handed on again, so that every
    /// listener (track, motion, MQTT) has the same one fix for it; the next epochs go out
    /// once, at their last report.
    @Test func anExtraReportRaisesTheCountWithoutASecondFix() {
        var merger = EpochMerger()
        _ = Self.run(&merger, [Self.afterGGA(0), Self.afterGGA(1), Self.afterGGA(2)])
        #expect(merger.expectedReports == 1)
        #expect(merger.receive(Self.afterRMC(2)).isEmpty)
        #expect(merger.expectedReports == 2)
        #expect(merger.receive(Self.afterGGA(3)).isEmpty)
        #expect(merger.receive(Self.afterRMC(3)) == [Self.afterRMC(3)])
    }

    /// A repeated report that changes nothing is not handed on again.
    @Test func anIdenticalExtraReportIsDropped() {
        var merger = EpochMerger()
        _ = Self.run(&merger, [Self.afterRMC(0), Self.afterRMC(1)])
        #expect(merger.receive(Self.afterRMC(1)).isEmpty)
        #expect(merger.expectedReports == 2)
    }

    /// A report without a time cannot be grouped: it is handed on alone, after the epoch held.
    @Test func anUntimedReportStandsAlone() {
        var merger = EpochMerger()
        var untimed = Self.afterGGA(0)
        untimed.time = nil
        #expect(merger.receive(Self.afterGGA(0)).isEmpty)
        #expect(merger.receive(untimed) == [Self.afterGGA(0), untimed])
        #expect(merger.receive(untimed) == [untimed])
    }

    /// The count follows the most of the last epochs: after a window of one-report epochs a
    /// receiver that dropped its second sentence for good is handed on at once again.
    @Test func theCountFallsAfterAWindowOfShorterEpochs() {
        var merger = EpochMerger()
        _ = Self.run(&merger, [Self.afterGGA(0), Self.afterRMC(0), Self.afterGGA(1), Self.afterRMC(1)])
        var second = 2
        while merger.expectedReports == 2 {
            _ = merger.receive(Self.afterGGA(second))
            second += 1
            #expect(second < 2 + EpochMerger.window + 2)
        }
        #expect(merger.receive(Self.afterGGA(second)).count == 1)
    }

    /// An epoch without its GGA has one report, after RMC; its course, which only the last
    /// report of the two-report epochs had, says the receiver's cycle has ended: it is
    /// handed on at that report, not with the next epoch's first.
    @Test func anEpochWithoutItsGGAIsHandedOnAtItsOneReport() {
        var merger = EpochMerger()
        _ = Self.run(&merger, [Self.afterGGA(0), Self.afterRMC(0), Self.afterGGA(1), Self.afterRMC(1)])
        #expect(merger.lastReportFields == Location.MeasuredFields(.track))
        #expect(merger.receive(Self.rmcWithoutGGA(2)) == [Self.rmcWithoutGGA(2)])
        #expect(!merger.isHolding)
        #expect(merger.receive(Self.afterGGA(3)).isEmpty)
        #expect(merger.receive(Self.afterRMC(3)) == [Self.afterRMC(3)])
        #expect(merger.expectedReports == 2)
    }

    /// An epoch without its RMC has, at its one report, the shape of every epoch's first:
    /// nothing tells that no RMC follows, so it goes with the next epoch's first report.
    @Test func anEpochWithoutItsRMCWaitsForTheNextReport() {
        var merger = EpochMerger()
        _ = Self.run(&merger, [Self.afterGGA(0), Self.afterRMC(0), Self.afterGGA(1), Self.afterRMC(1)])
        #expect(merger.receive(Self.afterGGA(2)).isEmpty)
        #expect(merger.receive(Self.rmcWithoutGGA(3)) == [Self.afterGGA(2), Self.rmcWithoutGGA(3)])
    }

    /// Reports of one epoch that differ in nothing (the same sentences ending gpsd's
    /// cycle twice) teach no last report: the epoch waits for its count.
    @Test func reportsAlikeTeachNoLastReport() {
        var merger = EpochMerger()
        _ = Self.run(
            &merger, [Self.afterRMC(0), Self.afterRMC(1), Self.afterRMC(1), Self.afterRMC(2), Self.afterRMC(2)])
        #expect(merger.lastReportFields.isEmpty)
        #expect(merger.receive(Self.afterRMC(3)).isEmpty)
        #expect(merger.receive(Self.afterRMC(3)) == [Self.afterRMC(3)])
    }

    /// A report with the last report's shape that turns out not to be the last (the
    /// receiver changed its order): the epoch, handed on at it, is not handed on again,
    /// and what was learnt of the last report is forgotten until epochs teach it again.
    @Test func aLastReportThatWasNotTheLastIsForgotten() {
        var merger = EpochMerger()
        _ = Self.run(&merger, [Self.afterGGA(0), Self.afterRMC(0), Self.afterGGA(1), Self.afterRMC(1)])
        #expect(merger.receive(Self.rmcWithoutGGA(2)) == [Self.rmcWithoutGGA(2)])
        #expect(merger.receive(Self.afterRMC(2)).isEmpty)
        #expect(merger.lastReportFields.isEmpty)
        #expect(merger.receive(Self.rmcWithoutGGA(3)).isEmpty)
        #expect(merger.receive(Self.afterRMC(3)) == [Self.afterRMC(3)])
        #expect(merger.lastReportFields == Location.MeasuredFields(.altMSL))
    }
}
