import Foundation
import LocationState

/// Turns the reports of the current fix (several per epoch from some receivers through
/// gpsd) into one fix per epoch, as soon as the epoch is complete.
///
/// gpsd sends a TPV at each sentence it learnt to end a reporting cycle, and at each
/// position or mode change while it has learnt none; a receiver can thus give two or
/// more TPVs of one time (one after GGA with a speed gpsd computed, one after RMC with
/// the receiver's). Reports of one time are merged (``Location/completing(_:)``: the
/// latest report's fields win). Since a client cannot see which sentence ended gpsd's
/// cycle, the merger learns how many reports an epoch has, the most among the last
/// ``window`` epochs, and hands an epoch on when its last expected report arrives:
/// in steady state, with no wait at all.
///
/// It also learns what only an epoch's last report has. gpsd (3.22) empties its fix
/// when a sentence with a new time starts a cycle (`drivers/driver_nmea0183.c`:3916-3922
/// sets `CLEAR_IS`, `gpsd/libgpsd_core.c`:1700-1703 clears), merges each sentence into
/// it (`libgpsd_core.c`:1708-1709), and reports at each cycle ender it learnt
/// (`driver_nmea0183.c`:3965-3970), in the receiver's fixed sentence order. So the
/// measurements that every recent complete epoch had in its last report and in none
/// before (RMC's course, after GGA) come from the receiver's last sentence: a report
/// that has them ends its epoch even when fewer reports came (a receiver that skipped
/// its GGA), and the epoch is handed on with it.
///
/// An epoch that ends short without its last sentence (a skipped RMC) has, at its one
/// report, the shape of every epoch's first report; it is handed on with whatever comes
/// next: the next epoch's first report, or nil when the fix goes (no fix, source lost, or
/// stale after the freshness timeout), or ``flush()`` at shutdown; no timer is needed.
/// Before the first epoch is known, the first one waits so. A report beyond the expected
/// count (a receiver that began sending more) raises the count and forgets what was
/// learnt of the last report; its epoch, handed on already, is not handed on again:
/// every listener has one fix per epoch, the same. Reports without a time are epochs of
/// their own.
///
/// A pure value: the daemon feeds it `deviceLocation`'s changes and writes what it
/// returns into "epochLocation" (its `Epochs`); tests feed it directly.
public struct EpochMerger: Sendable {
    /// How many recent epochs the expected count of reports is taken over.
    public static let window = 8

    /// An epoch's fix so far, how many reports made it, and which measurements its
    /// reports had: the latest one, and those before it.
    private struct Epoch: Sendable {
        var fix: Location
        var reports: Int
        var latest: Location.MeasuredFields
        var earlier: Location.MeasuredFields = []

        init(_ report: Location) {
            fix = report
            reports = 1
            latest = report.measuredFields
        }

        /// This epoch with `report`, a later report of its time.
        func adding(_ report: Location) -> Epoch {
            var next = Epoch(report)
            next.fix = report.completing(fix)
            next.reports = reports + 1
            next.earlier = earlier.union(latest)
            return next
        }
    }

    /// The epoch being gathered, not handed on yet.
    private var held: Epoch?
    /// The last epoch handed on, for a report of its time that comes late.
    private var handed: Epoch?
    /// Reports per epoch of the recent epochs, oldest first.
    private var recentCounts: [Int] = []
    /// For each recent epoch handed on at its expected count of two reports or more, what
    /// its last report had that the earlier ones had not, oldest first.
    private var recentLastOnly: [Location.MeasuredFields] = []

    public init() {}

    /// Reports an epoch is expected to have: the most of the recent epochs; nil before any.
    public var expectedReports: Int? { recentCounts.max() }

    /// The measurements only an epoch's last report has, as the recent epochs of several
    /// reports agree; empty when none do (one report an epoch, or the reports differ in
    /// nothing that stays).
    package var lastReportFields: Location.MeasuredFields {
        recentLastOnly.dropFirst().reduce(recentLastOnly.first ?? []) { $0.intersection($1) }
    }

    /// Whether an epoch is held, waiting for more reports.
    public var isHolding: Bool { held != nil }

    /// Takes the current fix's next value; returns the values the epoch fix takes, in order.
    public mutating func receive(_ value: Location?) -> [Location?] {
        guard let fix = value, let time = fix.time else {
            // Nil (no current fix) and an untimed report end the epoch held and stand alone.
            var out: [Location?] = flush().map { [$0] } ?? []
            handed = nil
            out.append(value)
            return out
        }
        if let held, held.fix.time == time {
            self.held = held.adding(fix)
            return handIfComplete()
        }
        if held == nil, let handed, handed.fix.time == time {
            // The epoch went out already: one epoch is one fix for every listener, so the
            // late report only teaches the count, and that what ended the epoch was not
            // its last report.
            self.handed = handed.adding(fix)
            recentCounts[recentCounts.count - 1] = handed.reports + 1
            recentLastOnly.removeAll()
            return []
        }
        var out: [Location?] = flush().map { [$0] } ?? []
        held = Epoch(fix)
        out += handIfComplete()
        return out
    }

    /// Hands on the held epoch, if any, as it is: its time to complete has passed.
    public mutating func flush() -> Location? {
        guard let held else { return nil }
        hand(held)
        return held.fix
    }

    private mutating func handIfComplete() -> [Location?] {
        guard let held, let expected = expectedReports else { return [] }
        let last = lastReportFields
        guard held.reports >= expected || (!last.isEmpty && held.latest.isSuperset(of: last)) else { return [] }
        if held.reports >= expected, held.reports > 1 {
            recentLastOnly.append(held.latest.subtracting(held.earlier))
            if recentLastOnly.count > Self.window { recentLastOnly.removeFirst() }
        }
        hand(held)
        return [held.fix]
    }

    private mutating func hand(_ epoch: Epoch) {
        held = nil
        handed = epoch
        recentCounts.append(epoch.reports)
        if recentCounts.count > Self.window { recentCounts.removeFirst() }
    }
}
