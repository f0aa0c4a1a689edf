import Foundation
import LocationState

/// What each sentence decides about the epoch's fix, before it is merged: gpsd's
/// `process*` functions in driver_nmea0183.c.
extension NMEAEpochAssembler {
    mutating func decide(_ gga: NMEASentence.GGA, talker: NMEATalker, into next: inout State) {
        if let quality = gga.quality { next.status = NMEAEpochAssembler.status(quality: quality) }
        if let hdop = gga.hdop { next.hdop = hdop }
        // A GGA repeating the previous GGA's time (same talker) means the receiver lost lock (gpsd).
        if let time = gga.timeOfDay, let last = lastGGA, last.talker == talker.second, last.time == time {
            next.mode = .noFix
            next.status = 0
            return
        }
        if let time = gga.timeOfDay { lastGGA = (talker.second, time) }
        let satellites = gga.satellitesUsed ?? 0
        guard let latitude = gga.latitude, let longitude = gga.longitude, gga.quality != 0 else {
            next.mode = .noFix
            return
        }
        next.latitude = latitude
        next.longitude = longitude
        next.mode = .twoD
        if let altitude = gga.altitudeMSL {
            next.altitudeMSL = altitude
            next.geoidSeparation = gga.geoidSeparation
            if satellites >= 4 { next.mode = .threeD }
        }
        if satellites < 3 { next.mode = .noFix }
        if let count = gga.satellitesUsed, state.satellites == nil { next.satellites = count }
    }

    static func decide(_ rmc: NMEASentence.RMC, prior: Prior, into next: inout State) {
        guard rmc.status == UInt8(ascii: "A") || rmc.status == UInt8(ascii: "D"),
            let latitude = rmc.latitude, let longitude = rmc.longitude
        else {
            next.mode = .noFix
            next.status = 0
            return
        }
        next.latitude = latitude
        next.longitude = longitude
        next.status = rmc.faaMode.map(NMEAEpochAssembler.status(faaMode:)) ?? (rmc.status == UInt8(ascii: "D") ? 2 : 1)
        // gpsd 3.22's RMC keeps its `lastfix` 3D, else 2D: the fix as it stood after the last
        // sentence merged with a time (the previous epoch's, when the RMC opens the cycle). A 3D
        // fix held through two GGAs without an altitude is not lifted back by the RMC after
        // them; nor is a GSA's 3D before the first date, when nothing merged had a time.
        next.mode = prior.timedMode == .threeD ? .threeD : .twoD
        if prior.satellitesUsed > 3 || prior.altitudeMSL != nil { next.mode = .threeD }
        if let knots = rmc.speedKnots { next.speed = knots * NMEAEpochAssembler.metersPerSecondPerKnot }
        if let track = rmc.track { next.track = track }
    }

    /// Whether the GLL sets the mode: not when it cannot tell 2D from 3D.
    static func decide(_ gll: NMEASentence.GLL, prior: Prior, into next: inout State) -> Bool {
        guard gll.status == UInt8(ascii: "A"), gll.faaMode != UInt8(ascii: "N"),
            let latitude = gll.latitude, let longitude = gll.longitude
        else {
            next.mode = .noFix
            next.status = 0
            return true
        }
        next.latitude = latitude
        next.longitude = longitude
        next.status = gll.faaMode.map(NMEAEpochAssembler.status(faaMode:)) ?? 1
        if prior.altitudeMSL != nil || prior.satellitesUsed > 3 {
            next.mode = .threeD
        } else if prior.mode < .twoD || !prior.previousHadAltitude {
            next.mode = .twoD
        } else {
            // gpsd 3.20 sets no mode here: a GLL cannot tell 2D from 3D after a 3D fix, and
            // the epoch keeps the mode it has (none, when the GLL starts it).
            return false
        }
        return true
    }

    static func decide(_ gns: NMEASentence.GNS, prior: Prior, into next: inout State) -> Bool {
        guard let mode = gns.mode, mode != UInt8(ascii: "N") else {
            next.mode = .noFix
            return true
        }
        if gns.navigationalStatus == UInt8(ascii: "U") || gns.navigationalStatus == UInt8(ascii: "V") { return false }
        guard let latitude = gns.latitude, let longitude = gns.longitude else {
            next.mode = .noFix
            return true
        }
        next.latitude = latitude
        next.longitude = longitude
        next.mode = .twoD
        if let altitude = gns.altitudeMSL {
            next.altitudeMSL = altitude
            next.geoidSeparation = gns.geoidSeparation
            if (gns.satellitesUsed ?? 0) > 3 { next.mode = .threeD }
        }
        if let count = gns.satellitesUsed, !prior.hasSatellites { next.satellites = count }
        if let hdop = gns.hdop { next.hdop = hdop }
        next.status = NMEAEpochAssembler.status(faaMode: mode)
        return true
    }

    mutating func decide(_ gsa: NMEASentence.GSA, talker: NMEATalker, into next: inout State) -> Bool {
        // Several GSA in one epoch (GN per constellation, or GP then GL/BD) add up; a repeat of one talker restarts.
        if lastGSATalker == 0 || (lastGSATalker == talker.second && talker.second != UInt8(ascii: "N")) {
            satellitesUsed = 0
        }
        lastGSATalker = talker.second
        satellitesUsed += gsa.satellites.count
        next.satellites = satellitesUsed
        if let hdop = gsa.hdop { next.hdop = hdop }
        if let vdop = gsa.vdop { next.vdop = vdop }
        guard let fixType = gsa.fixType, let mode = FixMode(rawValue: fixType), mode >= .noFix else { return false }
        next.mode = mode
        return true
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
