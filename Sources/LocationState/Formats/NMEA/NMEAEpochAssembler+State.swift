import Foundation
import LocationState

extension NMEAEpochAssembler {
    /// The merged state of the epoch in progress (gpsd's `gpsdata.fix`).
    ///
    /// Each value is optional to its users and stored without the optional's tag: an absent
    /// number is NaN (no sentence gives one: every decoded number is finite), an absent count
    /// `Int.min`. That keeps the state at 112 bytes, which the compiler copies with a few
    /// vector moves; with the tags (216 bytes) every copy was a call to memcpy.
    struct State {
        var mode: FixMode = .unknown
        @AbsentAsMinimum var status: Int?
        @AbsentAsMinimum var satellites: Int?
        @AbsentAsNaN var latitude: Double?
        @AbsentAsNaN var longitude: Double?
        @AbsentAsNaN var altitudeMSL: Double?
        @AbsentAsNaN var geoidSeparation: Double?
        @AbsentAsNaN var speed: Double?
        @AbsentAsNaN var track: Double?
        @AbsentAsNaN var hdop: Double?
        @AbsentAsNaN var vdop: Double?
        /// GST one-sigma errors: latitude, longitude, altitude (metres).
        @AbsentAsNaN var latitudeError: Double?
        @AbsentAsNaN var longitudeError: Double?
        @AbsentAsNaN var altitudeError: Double?
    }

    /// An optional number stored without the optional's tag: NaN when absent.
    @propertyWrapper
    struct AbsentAsNaN {
        private var stored = Double.nan

        var wrappedValue: Double? {
            get { stored.isNaN ? nil : stored }
            set { stored = newValue ?? .nan }
        }
    }

    /// An optional count stored without the optional's tag: `Int.min` when absent.
    @propertyWrapper
    struct AbsentAsMinimum {
        private var stored = Int.min

        var wrappedValue: Int? {
            get { stored == .min ? nil : stored }
            set { stored = newValue ?? .min }
        }
    }

    /// What a sentence's handler may look at of the state before it (gpsd decides before it merges).
    ///
    /// The handlers that only read are static functions of this snapshot rather than
    /// methods: a method call on the whole assembler from a `mutating` one made the
    /// compiler copy all of it (over 600 bytes) for each sentence.
    struct Prior {
        var mode: FixMode
        /// The mode of gpsd's `lastfix`: the fix as it stood after the last sentence merged
        /// into an epoch that had a time (the RMC's rule).
        var timedMode: FixMode
        var altitudeMSL: Double?
        /// Whether the epoch in progress already counts its satellites.
        var hasSatellites: Bool
        /// Satellites used by the last GSA set.
        var satellitesUsed: Int
        var previousHadAltitude: Bool
    }
}
