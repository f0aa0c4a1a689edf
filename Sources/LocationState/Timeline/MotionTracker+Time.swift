import Foundation

/// Fixes dated far from their neighbours, judged by them, as gpsd judges a receiver's
/// date against the time around it rather than trusting one report.
///
/// - A fix dated more than the stay gap after the last one used is held (``leaps``) until
///   the fixes after it say: two more, each later still, and the time really moved on (a
///   gap, as trackintel's: the held fixes are then taken in order); one that falls between
///   the last fix used and a held one shows the held ones after it misdated (a year 2099
///   among fixes of today), and they are ignored. So one or two misdated fixes cost
///   themselves and no more.
/// - A fix dated before the last one used is ignored (a repeated or late epoch); when
///   it is more than the stay gap before it, it may be a clock that went back for good
///   (a GPS week rollover, a replay starting over): three such fixes in a row, each after
///   the one before within the stay gap, start the tracker over on their times, as a gap
///   would. So no fix, however misdated, stops the timeline for long.
extension MotionTracker {
    /// Takes a fix by its time: a step, a leap held for the fixes after it to judge, a fix
    /// out of order, or the one that shows that the clock went back.
    package mutating func take(_ point: TrackPoint, _ events: inout [TimelineEvent]) {
        guard let last else { return begin(at: point) }
        if let held = leaps, point.time > last.time {
            return judgeLeaps(held, by: point, &events)
        }
        let elapsed = point.seconds(since: last.time)
        if elapsed <= 0 {
            guard elapsed < -configuration.stayGap else {
                ignored.outOfOrder += 1
                return
            }
            guard isClockReset(point) else { return }
            ignored.timeResets += 1
            leaps = nil
            interrupt(&events)
            begin(at: point)
        } else if elapsed > configuration.stayGap {
            rewinds = nil
            leaps = [point]
        } else {
            rewinds = nil
            step(to: point, after: last, &events)
        }
    }

    /// The held leaps judged by a later fix than the last one used: those dated at or after
    /// it were misdated; the rest, with it, are one more fix that agrees the time moved on.
    private mutating func judgeLeaps(_ held: [TrackPoint], by point: TrackPoint, _ events: inout [TimelineEvent]) {
        let misdated = held.filter { $0.time >= point.time }
        if let first = misdated.first {
            ignored.misdated += misdated.count
            lastMisdated = first.time
        }
        let agreeing = held.filter { $0.time < point.time } + [point]
        guard agreeing.count > 1 else {
            leaps = nil
            return take(point, &events)
        }
        guard agreeing.count >= Self.jumpsMakingDiscontinuity else {
            leaps = agreeing
            return
        }
        resume(after: agreeing, &events)
    }

    /// The time moved on: the first of `held` is the fix after a gap, the others follow it.
    package mutating func resume(after held: [TrackPoint], _ events: inout [TimelineEvent]) {
        leaps = nil
        interrupt(&events)
        begin(at: held[0])
        for next in held.dropFirst() { take(next, &events) }
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
