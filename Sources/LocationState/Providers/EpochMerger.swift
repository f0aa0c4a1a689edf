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
/// An epoch that ends short (a sentence the receiver skipped) is handed on with whatever
/// comes next: the next epoch's first report, or nil when the fix goes (no fix, source
/// lost, or stale after the freshness timeout), or ``flush()`` at shutdown; no timer is
/// needed. Before the first epoch is known, the first one waits so. A report beyond the
/// expected count (a receiver that began sending more) raises the count; its epoch, handed
/// on already, is not handed on again: every listener has one fix per epoch, the same.
/// Reports without a time are epochs of their own.
///
/// A pure value: the daemon feeds it `deviceLocation`'s changes and writes what it
/// returns into "epochLocation" (its `Epochs`); tests feed it directly.
public struct EpochMerger: Sendable {
    /// How many recent epochs the expected count of reports is taken over.
    public static let window = 8

    /// An epoch's fix so far, and how many reports made it.
    private struct Epoch: Sendable {
        var fix: Location
        var reports: Int
    }

    /// The epoch being gathered, not handed on yet.
    private var held: Epoch?
    /// The last epoch handed on, for a report of its time that comes late.
    private var handed: Epoch?
    /// Reports per epoch of the recent epochs, oldest first.
    private var recentCounts: [Int] = []

    public init() {}

    /// Reports an epoch is expected to have: the most of the recent epochs; nil before any.
    public var expectedReports: Int? { recentCounts.max() }

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
            self.held = Epoch(fix: fix.completing(held.fix), reports: held.reports + 1)
            return handIfComplete()
        }
        if held == nil, let handed, handed.fix.time == time {
            // The epoch went out already: one epoch is one fix for every listener, so the
            // late report only teaches the count.
            self.handed = Epoch(fix: handed.fix, reports: handed.reports + 1)
            recentCounts[recentCounts.count - 1] = handed.reports + 1
            return []
        }
        var out: [Location?] = flush().map { [$0] } ?? []
        held = Epoch(fix: fix, reports: 1)
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
        guard let held, let expected = expectedReports, held.reports >= expected else { return [] }
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
