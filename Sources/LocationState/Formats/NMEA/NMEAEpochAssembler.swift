import Foundation
import LocationState

/// Turns a stream of ``NMEASentence``s into one ``FixReport`` per epoch, as gpsd reports them.
///
/// An epoch (gpsd's "reporting cycle") starts with a timed sentence whose time differs
/// by more than 0.01 s from the previous timed sentence's, compared as gpsd 3.22 does
/// (`startsCycle(_:after:)`: the times read as the numbers hhmmss.sss, so 59.995 s
/// and the next minute's 00.000 are 41.005 apart, and a difference of exactly 10 ms
/// goes either way as gpsd's floating point decides). Timed sentences are GGA, GLL,
/// GNS and GBS with a time, and RMC with status `A`/`D`, a time and a date; ZDA only
/// gives the date (gpsd 3.22 does not start or end a cycle on it, nor on GST). The state is cleared only when
/// a cycle starts: sentences 10 ms apart that gpsd does not see as a new cycle share it.
/// The fields every sentence sets merge into the epoch's state in arrival order:
/// position from the last of GGA/RMC/GLL/GNS, speed and course from RMC and VTG,
/// altitude, geoid separation, satellites and HDOP from GGA and GNS, dimension,
/// satellites used and DOPs from GSA, error estimates from GST.
///
/// Like gpsd, the assembler learns which sentence types end a cycle (the last timed
/// sentence before the time moves on) and takes the epoch's fix when such a sentence
/// arrives; until it has learnt one, after every sentence that sets a position or the
/// fix mode (gpsd's unreliable cycle end: `LATLON_SET | MODE_SET`). A fix taken has
/// the time of the latest timed sentence (gpsd's `TIME_SET`), so an epoch of a 100 Hz
/// receiver, 10 ms after the one before, is a fix of its own even when gpsd keeps its
/// state. An epoch that never reaches its end sentence (a log cut short, a receiver
/// that skips sentences) is not reported: its data are incomplete. Of the fixes taken
/// at one time, the last is emitted, when a fix of another time is taken (a fix without
/// a time, before the first date, is replaced by the cycle's next one instead), when the
/// next cycle begins, or at ``finish(_:)``: `.fix(Location)` for a 2D or 3D fix with a
/// position, `.noFix` when the receiver said it had none.
///
/// Derived values, as gpsd computes them: `speed` from the distance (WGS84) to the
/// previous fix over the time between them when no sentence gave one; `climb` from the
/// altitudes; `eph` = HDOP × 19 m and `epv` = VDOP × 23 m (95 %), or, when the epoch has
/// a GST, 1.96 σ per axis (`epx`, `epy`, `epv`) and 2.45 σ horizontally (`eph`).
///
/// Dates follow the rules of ``NMEADate``: no fix has a `time` before an RMC or ZDA has
/// given a date.
public struct NMEAEpochAssembler: Sendable {
    /// How fixes are stamped.
    public struct Options: Sendable, Hashable {
        /// The `source` of every fix.
        public var source: FixSource
        /// The `device` of every fix.
        public var device: String?
        /// Dates before this are moved forward by whole 1024-week GPS eras (nil: never).
        public var rolloverFloor: NMEADate?

        public init(source: FixSource = .replay, device: String? = nil, rolloverFloor: NMEADate? = nil) {
            self.source = source
            self.device = device
            self.rolloverFloor = rolloverFloor
        }
    }

    /// Two timed sentences whose times differ by less than this belong to one cycle, and
    /// by more, to two, milliseconds; at exactly this, `startsCycle(_:after:)` decides.
    static let epochTolerance = 10

    /// The sentence types, for learning which one ends a cycle.
    private enum Kind: UInt8 {
        case gga, rmc, gll, gsa, gsv, vtg, gns, zda, gst, gbs, dbt
        /// A sentence not decoded: unknown, proprietary or too short.
        case other
        /// A sentence not decoded here that gpsd decodes into something it reports (heading, wind).
        case otherData

        var bit: UInt16 { 1 << rawValue }
    }

    let options: Options
    /// Days since 1970 of the current date, once an RMC or ZDA has given one.
    var day: Int?
    /// The last time of day merged into the date (gpsd's `merge_hhmmss`), milliseconds.
    private var dateTimeOfDay: Int?
    /// Time of day of the last timed sentence, milliseconds.
    private var lastTimedTime: Int?
    private var lastTimedKind: Kind?
    /// The sentence kinds learnt to end a cycle, one bit per ``Kind``.
    private var cycleEnders: UInt16 = 0
    /// Whether a DBT was seen: gpsd's continuation mode (see the DBT `add`).
    private var continues = false
    var state = State()
    /// Whether the epoch before the one in progress had an altitude.
    private var previousHadAltitude = false
    /// Whether the epoch in progress has a time: a GGA, RMC, GLL or GNS with a time of day
    /// merged into it once a date was known (gpsd's `TIME_SET`).
    private var epochHasTime = false
    /// The mode after the last sentence merged into an epoch with a time (gpsd's `lastfix`,
    /// which `gpsd_error_model` keeps only from a fix with a time): what an RMC keeps 3D.
    private var timedMode = FixMode.noFix
    /// The epoch's state when its end sentence arrived, until it is emitted (two fields
    /// rather than an optional tuple, which would be too large to copy without memcpy).
    private var pending: State?
    private var pendingTime: Date?
    /// Satellites used by the last GSA set, which gpsd keeps across epochs.
    var satellitesUsed = 0
    var lastGSATalker: UInt8 = 0
    var lastGGA: (talker: UInt8, time: Int)?
    /// The epoch before the one in progress as it ended, reported or not (gpsd's `oldfix`):
    /// what the derived speed and climb are measured from; nil when it had no position.
    private var previousEpoch: (seconds: Double, latitude: Double, longitude: Double, altitude: Double?)?

    public init(options: Options = Options()) {
        self.options = options
    }

    /// Feeds one sentence; `emit` receives the epoch it completes, if any.
    public mutating func add(_ sentence: NMEASentence, _ emit: (FixReport) -> Void) {
        switch sentence.body {
        case .gga(let gga): add(gga, talker: sentence.talker, emit)
        case .rmc(let rmc): add(rmc, emit)
        case .gll(let gll): add(gll, emit)
        case .gns(let gns): add(gns, emit)
        case .gsa(let gsa): add(gsa, talker: sentence.talker, emit)
        case .vtg(let vtg): add(vtg, emit)
        case .zda(let zda): add(zda, emit)
        case .gst(let gst): add(gst, emit)
        case .gsv(let gsv): add(gsv, emit)
        case .gbs(let gbs): add(gbs, emit)
        case .dbt(let dbt): add(dbt, emit)
        }
    }

    mutating func add(_ gga: NMEASentence.GGA, talker: NMEATalker, _ emit: (FixReport) -> Void) {
        let prior = prior
        if let time = gga.timeOfDay { mergeTimeOfDay(time) }
        var next = State()
        decide(gga, talker: talker, into: &next)
        conclude(.gga, timed: gga.timeOfDay, setsMode: true, next: next, prior: prior, emit)
    }

    mutating func add(_ rmc: NMEASentence.RMC, _ emit: (FixReport) -> Void) {
        let prior = prior
        var timed: Int?
        if rmc.status == UInt8(ascii: "A") || rmc.status == UInt8(ascii: "D"), let time = rmc.timeOfDay,
            let date = rmc.date
        {
            timed = time
            mergeTimeOfDay(time)
            day = date.daysSince1970
        }
        var next = State()
        NMEAEpochAssembler.decide(rmc, prior: prior, into: &next)
        conclude(.rmc, timed: timed, setsMode: true, next: next, prior: prior, emit)
    }

    mutating func add(_ gll: NMEASentence.GLL, _ emit: (FixReport) -> Void) {
        let prior = prior
        if let time = gll.timeOfDay { mergeTimeOfDay(time) }
        var next = State()
        let setsMode = NMEAEpochAssembler.decide(gll, prior: prior, into: &next)
        conclude(.gll, timed: gll.timeOfDay, setsMode: setsMode, next: next, prior: prior, emit)
    }

    mutating func add(_ gns: NMEASentence.GNS, _ emit: (FixReport) -> Void) {
        let prior = prior
        if let time = gns.timeOfDay { mergeTimeOfDay(time) }
        var next = State()
        let setsMode = NMEAEpochAssembler.decide(gns, prior: prior, into: &next)
        conclude(.gns, timed: gns.timeOfDay, setsMode: setsMode, next: next, prior: prior, emit)
    }

    mutating func add(_ gsa: NMEASentence.GSA, talker: NMEATalker, _ emit: (FixReport) -> Void) {
        let prior = prior
        var next = State()
        let setsMode = decide(gsa, talker: talker, into: &next)
        conclude(.gsa, timed: nil, setsMode: setsMode, next: next, prior: prior, emit)
    }

    mutating func add(_ vtg: NMEASentence.VTG, _ emit: (FixReport) -> Void) {
        var next = State()
        if let track = vtg.track, let knots = vtg.speedKnots, vtg.faaMode != UInt8(ascii: "N"),
            vtg.faaMode != UInt8(ascii: "E")
        {
            next.track = track
            next.speed = knots * NMEAEpochAssembler.metersPerSecondPerKnot
        }
        conclude(.vtg, timed: nil, setsMode: false, next: next, prior: prior, emit)
    }

    mutating func add(_ zda: NMEASentence.ZDA, _ emit: (FixReport) -> Void) {
        if let time = zda.timeOfDay, let date = zda.date {
            mergeTimeOfDay(time)
            day = date.daysSince1970
        }
        conclude(.zda, timed: nil, setsMode: false, next: State(), prior: prior, emit)
    }

    /// A GSV ends no cycle and sets nothing; it only takes its place in the sentence order.
    mutating func add(_: NMEASentence.GSV, _ emit: (FixReport) -> Void) {
        conclude(.gsv, timed: nil, setsMode: false, next: State(), prior: prior, emit)
    }

    /// A GBS sets nothing, but its time takes part in the cycle as gpsd's does (it
    /// registers the time without setting the fix's): a receiver that sends GBS last
    /// ends its epoch with it.
    mutating func add(_ gbs: NMEASentence.GBS, _ emit: (FixReport) -> Void) {
        conclude(.gbs, timed: gbs.timeOfDay, setsMode: false, next: State(), prior: prior, emit)
    }

    /// A DBT puts the assembler, for good, in gpsd's "continuation" mode (`cycle_continue`,
    /// which gpsd 3.22 sets on DBT and never clears): no sentence is learnt as a cycle's
    /// end any more; instead each untimed sentence (any type, also one not decoded) takes
    /// the end over from the timed sentence before it and reports. Marine logs, where an
    /// echo sounder shares the line, then report after nearly every sentence, as gpsd does.
    mutating func add(_: NMEASentence.DBT, _ emit: (FixReport) -> Void) {
        continues = true
        conclude(.dbt, timed: nil, setsMode: false, next: State(), prior: prior, emit)
    }

    /// A sentence not decoded (unknown type, too few fields): it sets nothing, but takes its
    /// place in the cycle as in gpsd (it ends GSA's run of talkers, and in continuation
    /// mode it takes the cycle's end from the timed sentence before it). It reports only
    /// when gpsd would have something to report from it (`setsData`: a heading, wind).
    public mutating func addOther(setsData: Bool, _ emit: (FixReport) -> Void) {
        conclude(setsData ? .otherData : .other, timed: nil, setsMode: false, next: State(), prior: prior, emit)
    }

    mutating func add(_ gst: NMEASentence.GST, _ emit: (FixReport) -> Void) {
        var next = State()
        if let latitudeError = gst.latitudeError, let longitudeError = gst.longitudeError {
            next.latitudeError = latitudeError
            next.longitudeError = longitudeError
            next.altitudeError = gst.altitudeError
        }
        conclude(.gst, timed: nil, setsMode: false, next: next, prior: prior, emit)
    }

    /// What the handlers see of the state before the sentence.
    private var prior: Prior {
        Prior(
            mode: state.mode, timedMode: timedMode, altitudeMSL: state.altitudeMSL,
            hasSatellites: state.satellites != nil,
            satellitesUsed: satellitesUsed,
            previousHadAltitude: previousHadAltitude)
    }

    /// gpsd's `merge_hhmmss`: a time of day more than half a day before the last one merged
    /// is on the next day. Each sentence with a time merges it before its own date, if
    /// it has one, so that an RMC or ZDA opening the first epoch after midnight keeps the
    /// date it gives. (gpsd compares the hours alone; half a day also keeps a log that
    /// steps back an hour on its day.)
    private mutating func mergeTimeOfDay(_ time: Int) {
        if let last = dateTimeOfDay, time < last - 43_200_000, let known = day { day = known + 1 }
        dateTimeOfDay = time
    }

    /// The common end of every sentence: a new cycle if it is timed and its time moved on,
    /// the merge of what it decided, and the epoch's fix if it ends a cycle.
    private mutating func conclude(
        _ kind: Kind, timed: Int?, setsMode: Bool, next: State, prior: Prior, _ emit: (FixReport) -> Void
    ) {
        if kind != .gsa { lastGSATalker = 0 }
        if let time = timed { beginCycleIfNew(time, emit) }
        merge(next, setsMode: setsMode, prior: prior)
        if timed != nil, kind != .gbs, day != nil { epochHasTime = true }
        if epochHasTime { timedMode = state.mode }
        if timed != nil {
            lastTimedKind = kind
        } else if continues {
            if let last = lastTimedKind { cycleEnders &= ~last.bit }
            cycleEnders |= kind.bit
        }
        // gpsd sends a report only for a sentence that set something (`DATA_IS`): never
        // for one it did not decode.
        if kind != .other,
            cycleEnders == 0
                ? setsMode || next.latitude != nil : (timed != nil || continues) && cycleEnders & kind.bit != 0
        {
            report(emit)
        }
    }

    /// Ends the input: emits the epoch in progress if it was reported.
    public mutating func finish(_ emit: (FixReport) -> Void) {
        release(emit)
    }

    private mutating func beginCycleIfNew(_ time: Int, _ emit: (FixReport) -> Void) {
        defer { lastTimedTime = time }
        if let last = lastTimedTime, !NMEAEpochAssembler.startsCycle(time, after: last) { return }
        release(emit)
        if let last = lastTimedTime,
            let time = NMEAEpochAssembler.fixTime(timeOfDay: last, day: day, rolloverFloor: options.rolloverFloor)
        {
            if state.mode.hasPosition, let latitude = state.latitude, let longitude = state.longitude {
                let altitude = state.mode == .threeD ? state.altitudeMSL : nil
                previousEpoch = (time.timeIntervalSince1970, latitude, longitude, altitude)
            } else {
                previousEpoch = nil
            }
        }
        if !continues, let kind = lastTimedKind { cycleEnders |= kind.bit }
        previousHadAltitude = state.altitudeMSL != nil
        state = State()
        epochHasTime = false
    }

    private mutating func merge(_ next: State, setsMode: Bool, prior: Prior) {
        if setsMode {
            var mode = next.mode
            // gpsd never downgrades a 3D fix while it holds an altitude, this epoch's or the
            // previous one's: any sentence that sets a mode short of "no fix" (an RMC, which
            // cannot tell; a GGA without altitude or with three satellites; a GSA that says
            // 2D) leaves it 3D.
            if mode != .noFix, prior.mode == .threeD, prior.altitudeMSL != nil || prior.previousHadAltitude {
                mode = .threeD
            }
            state.mode = mode
        }
        if let value = next.status { state.status = value }
        if let latitude = next.latitude, let longitude = next.longitude {
            state.latitude = latitude
            state.longitude = longitude
        }
        if let value = next.altitudeMSL {
            state.altitudeMSL = value
            state.geoidSeparation = next.geoidSeparation
        }
        if let value = next.speed { state.speed = value }
        if let value = next.track { state.track = value }
        if let value = next.satellites { state.satellites = value }
        if let value = next.hdop { state.hdop = value }
        if let value = next.vdop { state.vdop = value }
        if let value = next.latitudeError {
            state.latitudeError = value
            state.longitudeError = next.longitudeError
            state.altitudeError = next.altitudeError
        }
    }

    /// Takes the epoch's fix as it stands now, with the time of the latest timed sentence;
    /// ``release(_:)`` emits it when the epoch ends, or here when it had another time.
    private mutating func report(_ emit: (FixReport) -> Void) {
        let time = lastTimedTime.flatMap {
            NMEAEpochAssembler.fixTime(timeOfDay: $0, day: day, rolloverFloor: options.rolloverFloor)
        }
        // gpsd also reports a fix without a time before the first date; replay lets a timed
        // report of the same cycle take its place (a fix without a time is of no use to a
        // track, and the conformance with gpsd counts timed fixes only).
        if pending != nil, pendingTime != nil, pendingTime != time { release(emit) }
        pending = state
        pendingTime = time
    }

    /// Emits the reported epoch, if any, with the values derived from the previous fix.
    private mutating func release(_ emit: (FixReport) -> Void) {
        guard let state = pending else { return }
        let time = pendingTime
        pending = nil
        guard state.mode.hasPosition, let latitude = state.latitude, let longitude = state.longitude else {
            if state.mode == .noFix { emit(.noFix(time)) }
            return
        }
        var location = Location(
            time: time, mode: state.mode, status: state.status, lat: latitude, lon: longitude,
            source: options.source, device: options.device)
        // gpsd reports the altitude a 2D fix's sentences gave too; only the vertical error and
        // the climb need a 3D fix.
        let threeD = state.mode == .threeD
        if let altitude = state.altitudeMSL {
            location.altMSL = altitude
            if let separation = state.geoidSeparation {
                location.geoidSep = separation
                location.altHAE = altitude + separation
            }
        }
        location.speed = state.speed
        location.track = state.track
        location.satellitesUsed = state.satellites
        location.hdop = state.hdop
        if let latitudeError = state.latitudeError, let longitudeError = state.longitudeError {
            location.epx = 1.96 * longitudeError
            location.epy = 1.96 * latitudeError
            location.eph = 2.4477 * ((latitudeError * latitudeError + longitudeError * longitudeError) / 2).squareRoot()
            if let altitudeError = state.altitudeError, threeD, location.altMSL != nil {
                location.epv = 1.96 * altitudeError
            }
        } else {
            location.eph = state.hdop.map { $0 * 19 }
            if threeD, location.altMSL != nil { location.epv = state.vdop.map { $0 * 23 } }
        }
        if let time {
            let seconds = time.timeIntervalSince1970
            if let last = previousEpoch, seconds > last.seconds {
                let interval = seconds - last.seconds
                if location.speed == nil {
                    location.speed =
                        Geodesy.distance(
                            latitude1: last.latitude, longitude1: last.longitude, latitude2: latitude,
                            longitude2: longitude)
                        / interval
                }
                if threeD, let altitude = location.altMSL, let previous = last.altitude {
                    location.climb = (altitude - previous) / interval
                }
            }
        }
        emit(.fix(location))
    }

}
