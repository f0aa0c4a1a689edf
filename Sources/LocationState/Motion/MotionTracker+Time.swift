import Foundation

/// Fixes dated far from their neighbours, judged by them, as gpsd judges a receiver's
/// date against the time around it rather than trusting one report.
///
/// - A fix dated more than the stay gap after the last one used is held (``leap``) until
///   the next fix: if that one is later still, the time really moved on (a gap, as
///   trackintel's); if it falls between the two, the held fix was misdated (a year 2099
///   among fixes of today) and is ignored, so one bad fix costs one fix.
/// - A fix dated before the last one used is ignored (a repeated or late epoch); when
///   it is more than the stay gap before it, it may be a clock that went back for good
///   (a GPS week rollover, a replay starting over): three such fixes in a row, each after
///   the one before within the stay gap, start the tracker over on their times, as a gap
///   would. So no fix, however misdated, stops the timeline for long.
extension MotionTracker {
    /// Settles a held ``leap`` by the fix after it.
    mutating func settleLeap(before point: TrackPoint, _ events: inout [TimelineEvent]) {
        guard let leap, let last else { return }
        if point.time > leap.time {
            // The fix after the leap goes on from it: the time really moved on.
            self.leap = nil
            interrupt(&events)
            begin(at: leap)
        } else if point.time > last.time {
            // Back between the fixes around it: the leap was the one misdated.
            self.leap = nil
            ignored.misdated += 1
            lastMisdated = leap.time
        }
    }

    /// Takes a fix by its time: a step, a leap held for the next fix to judge, a fix out of
    /// order, or the one that shows that the clock went back.
    mutating func take(_ point: TrackPoint, _ events: inout [TimelineEvent]) {
        guard let last else { return begin(at: point) }
        let elapsed = point.seconds(since: last.time)
        if elapsed <= 0 {
            guard elapsed < -configuration.stayGap else {
                ignored.outOfOrder += 1
                return
            }
            guard isClockReset(point) else { return }
            ignored.timeResets += 1
            leap = nil
            interrupt(&events)
            begin(at: point)
        } else if elapsed > configuration.stayGap {
            rewinds = nil
            leap = point
        } else {
            rewinds = nil
            step(to: point, after: last, &events)
        }
    }

    /// Counts a fix dated more than the stay gap before the last one used as misdated;
    /// true when it is the last of enough such fixes in a row, each after the one before
    /// within the stay gap, so that the clock went back and stays there.
    private mutating func isClockReset(_ point: TrackPoint) -> Bool {
        var count = 1
        if let previous = rewinds, point.time > previous.point.time,
            point.seconds(since: previous.point.time) <= configuration.stayGap
        {
            count = previous.count + 1
        }
        guard count < Self.jumpsMakingDiscontinuity else { return true }
        ignored.misdated += 1
        lastMisdated = point.time
        rewinds = JumpRun(point: point, count: count)
        return false
    }
}
