import Foundation

/// Turns a stream of ``NMEASentence``s into one ``ProviderEvent`` per epoch.
///
/// An epoch is the run of sentences sharing one time of day (within 10 ms). A
/// sentence without a time (GSA, GSV, VTG, GST) belongs to the epoch in progress.
/// When a sentence with a new time arrives, the finished epoch becomes
/// `.fix(Location)` when it ends with a 2D or 3D fix and a position, `.noFix` when
/// the receiver said it has none, and nothing when it said neither.
///
/// Within an epoch the sentences merge in order, the way gpsd merges them:
/// position from the last of GGA/RMC/GLL/GNS that had one; RMC and VTG give speed
/// and course; GGA and GNS altitude, geoid separation, satellites and HDOP; GSA the
/// fix dimension, satellites used and DOPs; GST the error estimates. Each sentence
/// that speaks about validity (RMC status, GGA quality and satellite count, GLL
/// status, GNS mode, GSA fix type) updates the mode in turn.
///
/// Error estimates are at 95 % confidence, as gpsd's: from GST when the epoch has one
/// (1.96 σ per axis), otherwise gpsd's DOP model (`eph` = HDOP × 19 m, `epv` = VDOP × 23 m).
///
/// Dates follow the rules of ``NMEADate``: no fix has a `time` before an RMC or ZDA
/// has given a date.
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

    /// Two sentences whose times differ by at most this belong to one epoch, milliseconds.
    static let epochTolerance = 10

    private let options: Options
    /// Days since 1970 of the current date, once an RMC or ZDA has given one.
    private var day: Int?
    /// Time of day of the epoch in progress, milliseconds.
    private var epochTime: Int?
    private var epoch = Epoch()
    /// Mode of the last finished epoch that had a fix (gpsd keeps a 3D fix 3D on RMC).
    private var lastMode: FixMode = .unknown
    /// Whether an altitude was known in the last finished epoch.
    private var lastHadAltitude = false
    /// Satellites used by the last GSA set, which gpsd keeps across epochs.
    private var satellitesUsed = 0
    private var lastGSATalker: UInt8 = 0
    private var lastGGA: (talker: UInt8, time: Int)?
    private var previousFix: (seconds: Double, altitude: Double)?

    public init(options: Options = Options()) {
        self.options = options
    }

    /// What one epoch has gathered so far.
    private struct Epoch {
        var touched = false
        var mode: FixMode = .unknown
        var status: Int?
        var latitude: Double?
        var longitude: Double?
        var altitudeMSL: Double?
        var geoidSeparation: Double?
        var speed: Double?
        var track: Double?
        var satellites: Int?
        var hdop: Double?
        var vdop: Double?
        var gst: NMEASentence.GST?
    }

    /// Feeds one sentence; `emit` receives the epoch it completes, if any.
    public mutating func add(_ sentence: NMEASentence, _ emit: (ProviderEvent) -> Void) {
        if let time = sentence.timeOfDay { begin(time, emit) }
        let previousMode = epoch.mode
        if case .gsa = sentence.body {} else { lastGSATalker = 0 }
        var setsMode = true
        switch sentence.body {
        case .gga(let gga): setsMode = add(gga, talker: sentence.talker)
        case .rmc(let rmc): add(rmc)
        case .gll(let gll): add(gll)
        case .gns(let gns): setsMode = add(gns)
        case .gsa(let gsa): setsMode = add(gsa, talker: sentence.talker)
        case .vtg(let vtg):
            setsMode = false
            add(vtg)
        case .zda(let zda):
            setsMode = false
            if let date = zda.date { day = date.daysSince1970 }
        case .gst(let gst):
            setsMode = false
            epoch.gst = gst
        case .gsv:
            setsMode = false
        }
        epoch.touched = true
        // gpsd does not let a sentence without a dimension downgrade a 3D fix that had an altitude.
        if setsMode, lastMode == .threeD || previousMode == .threeD, epoch.mode == .twoD,
            epoch.altitudeMSL != nil || lastHadAltitude
        {
            epoch.mode = .threeD
        }
    }

    /// Ends the last epoch (end of input).
    public mutating func finish(_ emit: (ProviderEvent) -> Void) {
        flush(emit)
        epochTime = nil
    }

    private mutating func begin(_ time: Int, _ emit: (ProviderEvent) -> Void) {
        guard let current = epochTime else {
            epochTime = time
            return
        }
        guard abs(time - current) > NMEAEpochAssembler.epochTolerance else { return }
        flush(emit)
        if time < current - 43_200_000, let known = day { day = known + 1 }
        epochTime = time
    }

    private mutating func flush(_ emit: (ProviderEvent) -> Void) {
        defer { epoch = Epoch() }
        guard epoch.touched else { return }
        let time = epochTime.flatMap { fixTime(timeOfDay: $0) }
        guard epoch.mode.hasPosition, let latitude = epoch.latitude, let longitude = epoch.longitude else {
            if epoch.mode == .noFix { emit(.noFix(time)) }
            return
        }
        var location = Location(
            time: time, mode: epoch.mode, status: epoch.status, lat: latitude, lon: longitude,
            source: options.source, device: options.device)
        if epoch.mode == .threeD, let altitude = epoch.altitudeMSL {
            location.altMSL = altitude
            if let separation = epoch.geoidSeparation {
                location.geoidSep = separation
                location.altHAE = altitude + separation
            }
        }
        location.speed = epoch.speed
        location.track = epoch.track
        location.satellitesUsed = epoch.satellites
        location.hdop = epoch.hdop
        if let gst = epoch.gst, let latitudeError = gst.latitudeError, let longitudeError = gst.longitudeError {
            location.epx = 1.96 * longitudeError
            location.epy = 1.96 * latitudeError
            location.eph = 2.4477 * ((latitudeError * latitudeError + longitudeError * longitudeError) / 2).squareRoot()
            if let altitudeError = gst.altitudeError, location.altMSL != nil { location.epv = 1.96 * altitudeError }
        } else {
            location.eph = epoch.hdop.map { $0 * 19 }
            if location.altMSL != nil { location.epv = epoch.vdop.map { $0 * 23 } }
        }
        if let time, let altitude = location.altMSL {
            let seconds = time.timeIntervalSince1970
            if let previous = previousFix, seconds > previous.seconds, seconds - previous.seconds <= 10 {
                location.climb = (altitude - previous.altitude) / (seconds - previous.seconds)
            }
            previousFix = (seconds, altitude)
        } else {
            previousFix = nil
        }
        lastMode = epoch.mode
        lastHadAltitude = location.altMSL != nil
        emit(.fix(location))
    }

    private func fixTime(timeOfDay: Int) -> Date? {
        guard var day else { return nil }
        if let floor = options.rolloverFloor?.daysSince1970, day < floor {
            let eras = (floor - day + NMEADate.daysPerRolloverEra - 1) / NMEADate.daysPerRolloverEra
            day += eras * NMEADate.daysPerRolloverEra
        }
        return Date(timeIntervalSince1970: Double(day * 86_400) + Double(timeOfDay) / 1000)
    }

    /// Whether gpsd would call the altitude known when RMC or GLL decides between 2D and 3D.
    private var altitudeKnown: Bool { epoch.altitudeMSL != nil || lastHadAltitude }

    private mutating func add(_ gga: NMEASentence.GGA, talker: NMEATalker) -> Bool {
        if let quality = gga.quality { epoch.status = NMEAEpochAssembler.status(quality: quality) }
        // A GGA repeating the previous GGA's time (same talker) means the receiver lost lock.
        if let time = gga.timeOfDay, let last = lastGGA, last.talker == talker.second, last.time == time {
            epoch.mode = .noFix
            epoch.status = 0
            return true
        }
        if let time = gga.timeOfDay { lastGGA = (talker.second, time) }
        let satellites = gga.satellitesUsed ?? 0
        if let latitude = gga.latitude, let longitude = gga.longitude, gga.quality != 0 {
            epoch.latitude = latitude
            epoch.longitude = longitude
            epoch.mode = .twoD
            if let altitude = gga.altitudeMSL {
                epoch.altitudeMSL = altitude
                epoch.geoidSeparation = gga.geoidSeparation
                if satellites >= 4 { epoch.mode = .threeD }
            }
            if satellites < 3 { epoch.mode = .noFix }
        } else {
            epoch.mode = .noFix
        }
        if let satellites = gga.satellitesUsed, epoch.satellites == nil { epoch.satellites = satellites }
        if let hdop = gga.hdop { epoch.hdop = hdop }
        return true
    }

    private mutating func add(_ rmc: NMEASentence.RMC) {
        guard rmc.status == UInt8(ascii: "A") || rmc.status == UInt8(ascii: "D") else {
            epoch.mode = .noFix
            epoch.status = 0
            return
        }
        if rmc.timeOfDay != nil, let date = rmc.date { day = date.daysSince1970 }
        guard let latitude = rmc.latitude, let longitude = rmc.longitude else {
            epoch.mode = .noFix
            epoch.status = 0
            return
        }
        epoch.latitude = latitude
        epoch.longitude = longitude
        var status = rmc.status == UInt8(ascii: "D") ? 2 : 1
        if let mode = rmc.faaMode { status = NMEAEpochAssembler.status(faaMode: mode) }
        epoch.status = status
        epoch.mode = lastMode == .threeD ? .threeD : .twoD
        if satellitesUsed > 3 || altitudeKnown { epoch.mode = .threeD }
        if let knots = rmc.speedKnots { epoch.speed = knots * NMEAEpochAssembler.metersPerSecondPerKnot }
        if let track = rmc.track { epoch.track = track }
    }

    private mutating func add(_ gll: NMEASentence.GLL) {
        guard gll.status == UInt8(ascii: "A"), gll.faaMode != UInt8(ascii: "N"),
            let latitude = gll.latitude, let longitude = gll.longitude
        else {
            epoch.mode = .noFix
            epoch.status = 0
            return
        }
        epoch.latitude = latitude
        epoch.longitude = longitude
        epoch.status = gll.faaMode.map(NMEAEpochAssembler.status(faaMode:)) ?? 1
        if altitudeKnown || satellitesUsed > 3 {
            epoch.mode = .threeD
        } else if epoch.mode < .twoD || !lastHadAltitude {
            epoch.mode = .twoD
        }
    }

    private mutating func add(_ gns: NMEASentence.GNS) -> Bool {
        guard let mode = gns.mode, mode != UInt8(ascii: "N") else {
            epoch.mode = .noFix
            return true
        }
        if gns.navigationalStatus == UInt8(ascii: "U") || gns.navigationalStatus == UInt8(ascii: "V") { return false }
        guard let latitude = gns.latitude, let longitude = gns.longitude else {
            epoch.mode = .noFix
            return true
        }
        epoch.latitude = latitude
        epoch.longitude = longitude
        epoch.mode = .twoD
        if let altitude = gns.altitudeMSL {
            epoch.altitudeMSL = altitude
            epoch.geoidSeparation = gns.geoidSeparation
            if (gns.satellitesUsed ?? 0) > 3 { epoch.mode = .threeD }
        }
        if let satellites = gns.satellitesUsed, epoch.satellites == nil { epoch.satellites = satellites }
        if let hdop = gns.hdop { epoch.hdop = hdop }
        epoch.status = NMEAEpochAssembler.status(faaMode: mode)
        return true
    }

    private mutating func add(_ gsa: NMEASentence.GSA, talker: NMEATalker) -> Bool {
        // Several GSA in one epoch (GN per constellation, or GP then GL/BD) add up; a repeat of one talker restarts.
        if lastGSATalker == 0 || (lastGSATalker == talker.second && talker.second != UInt8(ascii: "N")) {
            satellitesUsed = 0
        }
        lastGSATalker = talker.second
        satellitesUsed += gsa.satellites.count
        epoch.satellites = satellitesUsed
        if let hdop = gsa.hdop { epoch.hdop = hdop }
        if let vdop = gsa.vdop { epoch.vdop = vdop }
        guard let fixType = gsa.fixType, let mode = FixMode(rawValue: fixType), mode >= .noFix else { return false }
        epoch.mode = mode
        return true
    }

    private mutating func add(_ vtg: NMEASentence.VTG) {
        guard let track = vtg.track, let knots = vtg.speedKnots else { return }
        if vtg.faaMode == UInt8(ascii: "N") || vtg.faaMode == UInt8(ascii: "E") { return }
        epoch.track = track
        epoch.speed = knots * NMEAEpochAssembler.metersPerSecondPerKnot
    }

    /// Metres per second in one knot.
    static let metersPerSecondPerKnot = 1852.0 / 3600.0

    /// gpsd's status for a GGA fix quality.
    static func status(quality: Int) -> Int {
        switch quality {
        case 0: 0
        case 2: 2
        case 4: 3
        case 5: 4
        case 6: 5
        case 7: 7
        case 8: 8
        default: 1
        }
    }

    /// gpsd's status for an FAA mode indicator.
    static func status(faaMode: UInt8) -> Int {
        switch faaMode {
        case UInt8(ascii: "D"), UInt8(ascii: "P"): 2
        case UInt8(ascii: "R"): 3
        case UInt8(ascii: "F"): 4
        case UInt8(ascii: "E"): 5
        case UInt8(ascii: "S"): 8
        case UInt8(ascii: "N"): 0
        default: 1
        }
    }
}
