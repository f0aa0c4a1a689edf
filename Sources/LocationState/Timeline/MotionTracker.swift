import Foundation
import LocationState

/// Stays, trips and motion from a stream of fixes: a pure function of (state, fix).
///
/// Stays follow trackintel's `generate_staypoints(method="sliding")` (Li et al. 2008)
/// exactly, fix for fix:
/// - a stay candidate starts at a fix; each later fix is measured against that first
///   fix: closer than the stay distance, it joins the candidate;
/// - a fix at the stay distance or farther ends the candidate, which is a stay when this
///   fix comes at least the stay duration after the candidate's first (`start` is the
///   first fix's time, `end` this fix's); either way, this fix starts the next candidate;
/// - a time between two fixes longer than the stay gap drops the candidate, stay or not,
///   and the fix after the gap starts the next (a dropped stay that was already reported
///   is withdrawn: ``TimelineEvent/stayDropped(_:)``);
/// - at the end of the data the open candidate is not a stay (trackintel's `include_last=False`):
///   ``finish()`` closes only what was closed already.
///
/// Beyond trackintel (see docs/timeline.md, "Decisions"):
/// - a stay that lasted the stay duration is reported at once (``Motion/stopped(since:latitude:longitude:)``,
///   ``openStay``), not when the device leaves;
/// - a stay that begins within the stay gap of the last one's end, with its centroid
///   closer than the stay distance to the last one's, continues it: they are one stay
///   and the trip between them is dropped. So the last stay is reported closed only
///   when no stay can continue it any more (``closingStay`` until then);
/// - a stopped device is `moving` only once the fix after the one that left the stay is
///   away too: one multipath fix moves nothing;
/// - a trip's distance is the receiver's speed over time where it reports one (parked
///   jitter adds nothing), else the path along the fixes, and its maximum speed takes
///   every counted step's, so that the average is never above the maximum;
/// - fixes without a position or a time, with a time not after the last fix's, or
///   farther from the last fix than `maxSpeed` allows are ignored and counted
///   (``ignored``); three jumps in a row that agree with each other are used after all
///   (the track really moved, or the fix before them was the outlier), the step across
///   the jump not travelled. Fixes dated more than the stay gap from their neighbours are judged by
///   them (see `MotionTracker+Time.swift`): one misdated fix costs one fix.
///
/// Memory is constant: running sums, never the fixes.
public struct MotionTracker: Sendable, Hashable, Codable {
    public var configuration: MotionConfiguration
    /// What the device is doing.
    public internal(set) var motion = Motion.unknown
    /// The fixes ignored so far, by reason.
    public internal(set) var ignored = IgnoredFixes()
    /// The time of the latest fix found misdated (``IgnoredFixes/misdated``).
    public internal(set) var lastMisdated: Date?

    /// The last fix used.
    package var last: TrackPoint?
    /// The stay candidate the latest fixes belong to.
    private var candidate: StayCandidate?
    /// The last stay, ended, until no later stay can continue it.
    private var closing: Stay?
    /// Whether the established candidate continues `closing`.
    private var continuesClosing = false
    /// The trip under way, from the last stay (or the first movement) to the candidate.
    private var trip: TripProgress?
    /// The fixes rejected as jumps since the last one used, while they agree with each other.
    private var jumps: JumpRun?
    /// The fixes of `jumps` before its latest, in order, so that they can be used after all
    /// (nil in a state saved without them).
    private var jumpsBefore: [TrackPoint]?
    /// The fixes dated more than the stay gap after the last one used, each after the one
    /// before (at most two), until enough of them agree that the time really moved on, or
    /// a fix between them and the last one used shows them misdated.
    package var leaps: [TrackPoint]?
    /// The fixes dated more than the stay gap before the last one used, in a row, while
    /// they agree with each other.
    package var rewinds: JumpRun?
    /// The fix that left the stopped device's stay, until the next fix says whether it moved.
    private var departure: TrackPoint?

    /// How many agreeing jumps in a row show that the track really moved (or is back).
    package static let jumpsMakingDiscontinuity = 3

    public init(configuration: MotionConfiguration = MotionConfiguration()) {
        self.configuration = configuration
    }

    /// The stay the device is in, once it has lasted the stay duration (its centroid
    /// is the running one; `end` is the latest fix's time).
    public var openStay: Stay? {
        guard let candidate, candidate.isEstablished else { return nil }
        let stay = candidate.stay(end: candidate.end, isOpen: true)
        guard continuesClosing, let closing else { return stay }
        return closing.merged(with: stay)
    }

    /// The trip under way: the fixes since the last stay, up to the latest.
    public var openTrip: Trip? {
        guard var trip else { return nil }
        if let candidate, !candidate.isEstablished { trip.absorb(candidate) }
        return trip.trip(end: trip.end, to: nil, isOpen: true)
    }

    /// The last stay, ended, while a stay starting soon at the same place could still
    /// continue it; reported by a ``TimelineEvent/stayClosed(_:)`` once it cannot.
    public var closingStay: Stay? { continuesClosing ? nil : closing }

    /// The time of the last fix used.
    public var lastFixTime: Date? { last?.time }

    /// Takes one fix; returns what it closed and how the motion changed, in time order.
    public mutating func ingest(_ fix: Location) -> [TimelineEvent] {
        guard fix.hasPosition, let latitude = fix.lat, let longitude = fix.lon, latitude.isFinite,
            longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180
        else {
            ignored.withoutPosition += 1
            return []
        }
        guard let time = fix.time else {
            ignored.withoutTime += 1
            return []
        }
        let speed = fix.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let point = TrackPoint(time: time, latitude: latitude, longitude: longitude, speed: speed)
        guard last != nil else {
            begin(at: point)
            return []
        }
        let before = motion
        var events: [TimelineEvent] = []
        take(point, &events)
        if !motion.isSameKind(as: before) { events.append(.motion(motion)) }
        return events
    }

    /// Ends what a gap would end when `now` is more than the stay gap after the last fix:
    /// what the next fix would close, closed without waiting for it.
    public mutating func expire(at now: Date) -> [TimelineEvent] {
        guard let last, TrackPoint.seconds(from: last.time, to: now) > configuration.stayGap,
            candidate != nil || motion != .unknown
        else { return [] }
        let before = motion
        var events: [TimelineEvent] = []
        interrupt(&events)
        if !motion.isSameKind(as: before) { events.append(.motion(motion)) }
        return events
    }

    /// The end of the data: fixes held after a leap in time are taken (nothing after them
    /// says they were wrong); the last stay, if it was still closing, closes; the open stay
    /// and trip stay open, as trackintel leaves the last candidate out.
    public mutating func finish() -> [TimelineEvent] {
        let before = motion
        var events: [TimelineEvent] = []
        while let held = leaps { resume(after: held, &events) }
        if !motion.isSameKind(as: before) { events.append(.motion(motion)) }
        if let closing { events.append(.stayClosed(closing)) }
        closing = nil
        continuesClosing = false
        return events
    }

    /// A fix whose time is after the last one's: a step of the track, a jump, or a gap.
    package mutating func step(to point: TrackPoint, after last: TrackPoint, _ events: inout [TimelineEvent]) {
        let elapsed = point.seconds(since: last.time)
        let segment = last.step(to: point)
        if segment > configuration.maxSpeed * elapsed + MotionConfiguration.jumpTolerance {
            let run = jumps
            let before = jumpsBefore
            guard isDiscontinuity(point) else { return }
            guard let run, let before, before.count == run.count - 1 else {
                // A state saved without the run's fixes: this one starts over, as at a gap.
                interrupt(&events)
                begin(at: point)
                return
            }
            // The track really moved (the receiver's first fix after it lost lock, a source
            // switched), or the last fix used was the outlier (within reach of the one
            // before it, it got through) and the run is back where that one was. Either way
            // the run's fixes are used, in order, as trackintel, which has no such filter,
            // uses every fix; the step across the jump is not travelled.
            ignored.jumps -= run.count
            let held = before + [run.point, point]
            use(held[0], after: last, segment: nil, &events)
            for fix in held.dropFirst() {
                let from = self.last ?? last
                use(fix, after: from, segment: from.step(to: fix), &events)
            }
            return
        }
        use(point, after: last, segment: segment, &events)
    }

    /// A fix used: a step of the track from the last one, `segment` metres long; nil across
    /// a jump, a step of no distance and no speed.
    private mutating func use(
        _ point: TrackPoint, after last: TrackPoint, segment: Double?, _ events: inout [TimelineEvent]
    ) {
        let elapsed = point.seconds(since: last.time)
        jumps = nil
        jumpsBefore = nil
        confirmDeparture(point)
        var step = Step(travel: 0, elapsed: elapsed, speed: 0)
        if let segment {
            // The receiver's speed over the step where it gave one (bounded by the step plus
            // the noise, for a long step with a stop in it), else the step itself.
            step.travel = last.speed.map { min($0 * elapsed, segment + MotionConfiguration.jumpTolerance) } ?? segment
            step.speed = point.speed ?? segment / elapsed
        }
        advance(to: point, step, &events)
        self.last = point
    }

    /// Starts over at `point`: its candidate's first fix.
    package mutating func begin(at point: TrackPoint) {
        candidate = StayCandidate(first: point, speed: point.speed ?? 0)
        last = point
        jumps = nil
        jumpsBefore = nil
        rewinds = nil
        departure = nil
    }

    /// A step from the last fix used to the next: the distance it adds to a trip, its time,
    /// and the speed at its fix (the receiver's, else the step's).
    package struct Step {
        var travel: Double
        var elapsed: Double
        var speed: Double
    }

    /// A fix within the stay gap of the last one: into the candidate, or ending it.
    private mutating func advance(to point: TrackPoint, _ step: Step, _ events: inout [TimelineEvent]) {
        guard var current = candidate else { return begin(at: point) }
        if current.first.distance(to: point) >= configuration.stayDistance {
            // trackintel measures the duration to the fix that ends the candidate.
            if !current.isEstablished, point.seconds(since: current.start) >= configuration.stayDuration {
                establish(&current, &events)
            }
            if current.isEstablished {
                let stay = current.stay(end: point.time, isOpen: false)
                closing = continuesClosing ? closing.map { $0.merged(with: stay) } : stay
                continuesClosing = false
                // The trip starts at this fix: the step into it lies in the stay's time
                // (which ends here), so it is not the trip's distance either.
                trip = TripProgress(start: point.time, from: closing?.start, distance: 0)
            } else {
                var moving = trip ?? TripProgress(start: current.start, from: nil, distance: 0)
                moving.absorb(current)
                moving.add(travel: step.travel, elapsed: step.elapsed)
                trip = moving
            }
            candidate = StayCandidate(first: point, speed: step.speed)
            leave(at: point)
        } else {
            current.add(point, travel: step.travel, speed: max(step.speed, step.travel / step.elapsed))
            if !current.isEstablished, point.seconds(since: current.start) >= configuration.stayDuration {
                establish(&current, &events)
            }
            candidate = current
        }
        if let closing, !continuesClosing, let candidate,
            TrackPoint.seconds(from: closing.end, to: candidate.start) > configuration.stayGap
        {
            events.append(.stayClosed(closing))
            self.closing = nil
        }
    }

    /// A candidate ended at `point`: the device is moving, or, if it was stopped, may be.
    private mutating func leave(at point: TrackPoint) {
        if case .stopped = motion { departure = point } else { motion = .moving }
    }

    /// The fix after one that left a stopped device's stay: away from the stay too, the
    /// device is moving; back within the stay distance of it, that fix was an outlier (a
    /// multipath reflection) and the device is still stopped. The stays and trips are
    /// trackintel's either way: this decides the motion only.
    private mutating func confirmDeparture(_ point: TrackPoint) {
        guard departure != nil else { return }
        departure = nil
        if case .stopped(_, let latitude, let longitude, _) = motion,
            SphericalEarth.distance(
                latitude1: latitude, longitude1: longitude, latitude2: point.latitude, longitude2: point.longitude)
                < configuration.stayDistance
        {
            return
        }
        motion = .moving
    }

    /// The candidate has lasted the stay duration: it continues the last stay, or the
    /// last stay and the trip since close and the device is stopped here.
    private mutating func establish(_ current: inout StayCandidate, _ events: inout [TimelineEvent]) {
        current.isEstablished = true
        let stay = current.stay(end: current.end, isOpen: true)
        if let closing, TrackPoint.seconds(from: closing.end, to: current.start) <= configuration.stayGap,
            SphericalEarth.distance(
                latitude1: closing.latitude, longitude1: closing.longitude, latitude2: stay.latitude,
                longitude2: stay.longitude) < configuration.stayDistance
        {
            continuesClosing = true
            trip = nil
            let merged = closing.merged(with: stay)
            motion = .stopped(since: merged.start, latitude: merged.latitude, longitude: merged.longitude)
            return
        }
        if let closing { events.append(.stayClosed(closing)) }
        closing = nil
        if let trip, trip.fixes > 0 {
            events.append(.tripClosed(trip.trip(end: current.start, to: current.start, isOpen: false)))
        }
        trip = nil
        motion = .stopped(since: stay.start, latitude: stay.latitude, longitude: stay.longitude)
    }

    /// A gap, or a clock gone back: the candidate is dropped (as trackintel drops it, even
    /// one that had become a stay, which is then withdrawn), the last stay and the trip
    /// close, and the motion is unknown.
    package mutating func interrupt(_ events: inout [TimelineEvent]) {
        if let closing { events.append(.stayClosed(closing)) }
        if let candidate, candidate.isEstablished, !continuesClosing {
            events.append(.stayDropped(candidate.stay(end: candidate.end, isOpen: false)))
        }
        if var trip, let candidate, !candidate.isEstablished {
            trip.absorb(candidate)
            if trip.fixes > 0 { events.append(.tripClosed(trip.trip(end: trip.end, to: nil, isOpen: false))) }
        }
        closing = nil
        continuesClosing = false
        trip = nil
        candidate = nil
        departure = nil
        motion = .unknown
    }

    /// Counts a fix too far from the last one; true when it is the last of enough jumps
    /// in a row that agree with each other, so that the track has really moved.
    private mutating func isDiscontinuity(_ point: TrackPoint) -> Bool {
        var count = 1
        var before: [TrackPoint]? = []
        if let previous = jumps, point.time > previous.point.time,
            previous.point.step(to: point)
                <= configuration.maxSpeed * point.seconds(since: previous.point.time)
                + MotionConfiguration.jumpTolerance
        {
            count = previous.count + 1
            before = jumpsBefore.map { $0 + [previous.point] }
        }
        guard count < Self.jumpsMakingDiscontinuity else { return true }
        ignored.jumps += 1
        jumps = JumpRun(point: point, count: count)
        jumpsBefore = before
        return false
    }

    /// The latest of the fixes rejected in a row that agree with each other, and how many.
    package struct JumpRun: Sendable, Hashable, Codable {
        var point: TrackPoint
        var count: Int
    }
}
