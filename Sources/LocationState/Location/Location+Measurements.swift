import Foundation

extension Location {
    /// How a fix stores its optional measurements: each one a plain value plus a bit in
    /// `present`, an absent one stored as zero, so that the synthesized `==` and
    /// `hash(into:)` mean what they would with optionals.
    ///
    /// A fix is thus about half the size it would be with 16 optionals (16 bytes each),
    /// and it is copied several times on its way through a `MonitoredState` to each
    /// listener (measured with `locationd-bench fanout` and `pipeline`).
    struct Measurements: Sendable, Hashable {
        /// A measurement of type `Double`; its raw value is its bit in `present`.
        enum Field: Int {
            case lat, lon, altHAE, altMSL, speed, track, climb, eph, epv, eps, epc, epx, epy, geoidSep, hdop
        }

        /// Bit 15 for `time`, bit `field.rawValue` for each `Field`.
        private var present: UInt16 = 0
        private var storedTime = Measurements.noTime
        private var lat: Double = 0
        private var lon: Double = 0
        private var altHAE: Double = 0
        private var altMSL: Double = 0
        private var speed: Double = 0
        private var track: Double = 0
        private var climb: Double = 0
        private var eph: Double = 0
        private var epv: Double = 0
        private var eps: Double = 0
        private var epc: Double = 0
        private var epx: Double = 0
        private var epy: Double = 0
        private var geoidSep: Double = 0
        private var hdop: Double = 0

        // Computed, not stored: constants the optimizer folds, with no lazy global to check.
        @inline(__always) private static var noTime: Date { Date(timeIntervalSinceReferenceDate: 0) }
        @inline(__always) private static var timeBit: UInt16 { 1 << 15 }

        /// The time of the fix, when known.
        var time: Date? {
            @inline(__always) get { present & Self.timeBit != 0 ? storedTime : nil }
            @inline(__always) set {
                storedTime = newValue ?? Self.noTime
                present = newValue == nil ? present & ~Self.timeBit : present | Self.timeBit
            }
        }

        /// The measurement `field`, when known.
        subscript(field: Field) -> Double? {
            @inline(__always) get { present & 1 << field.rawValue != 0 ? self[stored: field] : nil }
            @inline(__always) set {
                self[stored: field] = newValue ?? 0
                let bit: UInt16 = 1 << field.rawValue
                present = newValue == nil ? present & ~bit : present | bit
            }
        }

        /// These measurements, with each one they lack taken from `earlier` (a report of the
        /// same epoch that came before).
        func completing(_ earlier: Measurements) -> Measurements {
            let missing = earlier.present & ~present
            guard missing != 0 else { return self }
            var merged = self
            if missing & Self.timeBit != 0 { merged.time = earlier.time }
            var bits = missing & ~Self.timeBit
            while bits != 0 {
                let field = Field(rawValue: bits.trailingZeroBitCount)!
                merged[field] = earlier[field]
                bits &= bits - 1
            }
            return merged
        }

        private subscript(stored field: Field) -> Double {
            @inline(__always) get {
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
            @inline(__always) set {
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
    }
}
