import Foundation

extension Location {
    /// The optional measurements of a fix, addressable by field: validation and the merge
    /// of an epoch's reports walk them.
    ///
    /// Stored as plain `Double`s and one bit a field for whether it is known, not as
    /// `Double?`s: an optional `Double` takes 16 bytes in a struct, so the fields took 256
    /// bytes where they now take 136, and a fix is copied several times on its way
    /// through the pipeline (docs/performance.md, "What each speed trick buys"). An
    /// unknown field holds 0, so that the synthesized `==` and `hash(into:)` read the
    /// same as they would on the optionals.
    package struct Measurements: Sendable, Hashable {
        /// A measurement of type `Double`.
        package enum Field: UInt32, CaseIterable {
            case lat, lon, altHAE, altMSL, speed, track, climb, eph, epv, eps, epc, epx, epy, geoidSep, hdop
        }

        /// Bit `field.rawValue` set when `field` is known; ``timeBit`` when the time is.
        private var known: UInt16 = 0
        /// The time, as `Date`'s own seconds since its reference date.
        private var seconds: Double = 0
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

        private static let timeBit: UInt16 = 1 << 15

        /// The time of the fix, when known.
        var time: Date? {
            @inline(__always) get { known & Self.timeBit != 0 ? Date(timeIntervalSinceReferenceDate: seconds) : nil }
            @inline(__always) set {
                seconds = newValue?.timeIntervalSinceReferenceDate ?? 0
                known = newValue == nil ? known & ~Self.timeBit : known | Self.timeBit
            }
        }

        /// The measurement `field`, when known.
        subscript(field: Field) -> Double? {
            @inline(__always) get { known & Self.bit(field) != 0 ? value(field) : nil }
            @inline(__always) set {
                setValue(newValue ?? 0, field)
                known = newValue == nil ? known & ~Self.bit(field) : known | Self.bit(field)
            }
        }

        @inline(__always)
        private static func bit(_ field: Field) -> UInt16 { 1 << UInt16(truncatingIfNeeded: field.rawValue) }

        @inline(__always)
        private func value(_ field: Field) -> Double {
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

        @inline(__always)
        private mutating func setValue(_ value: Double, _ field: Field) {
            switch field {
            case .lat: lat = value
            case .lon: lon = value
            case .altHAE: altHAE = value
            case .altMSL: altMSL = value
            case .speed: speed = value
            case .track: track = value
            case .climb: climb = value
            case .eph: eph = value
            case .epv: epv = value
            case .eps: eps = value
            case .epc: epc = value
            case .epx: epx = value
            case .epy: epy = value
            case .geoidSep: geoidSep = value
            case .hdop: hdop = value
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
