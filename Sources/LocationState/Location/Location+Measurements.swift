import Foundation

extension Location {
    /// The optional measurements of a fix, addressable by field: validation and the merge
    /// of an epoch's reports walk them.
    package struct Measurements: Sendable, Hashable {
        /// A measurement of type `Double`.
        package enum Field: UInt32, CaseIterable {
            case lat, lon, altHAE, altMSL, speed, track, climb, eph, epv, eps, epc, epx, epy, geoidSep, hdop
        }

        /// The time of the fix, when known.
        var time: Date?
        private var lat: Double?
        private var lon: Double?
        private var altHAE: Double?
        private var altMSL: Double?
        private var speed: Double?
        private var track: Double?
        private var climb: Double?
        private var eph: Double?
        private var epv: Double?
        private var eps: Double?
        private var epc: Double?
        private var epx: Double?
        private var epy: Double?
        private var geoidSep: Double?
        private var hdop: Double?

        /// The measurement `field`, when known.
        subscript(field: Field) -> Double? {
            get {
                switch field {
                case .lat: lat
                case .lon: lon
                case .altHAE: altHAE
                case .altMSL: altMSL
                case .speed: speed
                case .track: track
                case .climb: climb
                case .eph: eph
                case .epv: epv
                case .eps: eps
                case .epc: epc
                case .epx: epx
                case .epy: epy
                case .geoidSep: geoidSep
                case .hdop: hdop
                }
            }
            set {
                switch field {
                case .lat: lat = newValue
                case .lon: lon = newValue
                case .altHAE: altHAE = newValue
                case .altMSL: altMSL = newValue
                case .speed: speed = newValue
                case .track: track = newValue
                case .climb: climb = newValue
                case .eph: eph = newValue
                case .epv: epv = newValue
                case .eps: eps = newValue
                case .epc: epc = newValue
                case .epx: epx = newValue
                case .epy: epy = newValue
                case .geoidSep: geoidSep = newValue
                case .hdop: hdop = newValue
                }
            }
        }

        /// These measurements, with each one they lack taken from `earlier` (a report of the
        /// same epoch that came before).
        func completing(_ earlier: Measurements) -> Measurements {
            var merged = self
            merged.time = time ?? earlier.time
            for field in Field.allCases where merged[field] == nil { merged[field] = earlier[field] }
            return merged
        }
    }
}
