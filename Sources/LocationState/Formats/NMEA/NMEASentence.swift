/// One decoded NMEA 0183 sentence of a type locationd understands.
///
/// Units are those of the sentence where it has its own (knots, km/h) and are
/// converted by ``NMEAEpochAssembler``. Times of day are milliseconds since
/// 00:00 UTC; an empty field is `nil`. Latitude and longitude are signed degrees.
public struct NMEASentence: Sendable, Hashable {
    /// Who sent it (`GP`, `GN`, ...).
    public var talker: NMEATalker
    /// What it says.
    public var body: Body

    public init(talker: NMEATalker, body: Body) {
        self.talker = talker
        self.body = body
    }

    /// The sentence types, each with its fields.
    public enum Body: Sendable, Hashable {
        case gga(GGA)
        case rmc(RMC)
        case gll(GLL)
        case gsa(GSA)
        case gsv(GSV)
        case vtg(VTG)
        case gns(GNS)
        case zda(ZDA)
        case gst(GST)
        case gbs(GBS)
        case dbt(DBT)
    }

    /// The time of day the sentence is stamped with, in milliseconds since 00:00 UTC.
    public var timeOfDay: Int? {
        switch body {
        case .gga(let s): s.timeOfDay
        case .rmc(let s): s.timeOfDay
        case .gll(let s): s.timeOfDay
        case .gns(let s): s.timeOfDay
        case .zda(let s): s.timeOfDay
        case .gbs(let s): s.timeOfDay
        case .gsa, .gsv, .vtg, .gst, .dbt: nil
        }
    }

    /// GGA: fix data (time, position, quality, satellites, HDOP, altitude, geoid).
    public struct GGA: Sendable, Hashable {
        public var timeOfDay: Int?
        public var latitude: Double?
        public var longitude: Double?
        /// 0 invalid, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float, 6 estimated, 7 manual, 8 simulated.
        public var quality: Int?
        public var satellitesUsed: Int?
        public var hdop: Double?
        /// Altitude above mean sea level, metres.
        public var altitudeMSL: Double?
        /// Geoid height above the WGS84 ellipsoid, metres.
        public var geoidSeparation: Double?

        public init(
            timeOfDay: Int? = nil, latitude: Double? = nil, longitude: Double? = nil, quality: Int? = nil,
            satellitesUsed: Int? = nil, hdop: Double? = nil, altitudeMSL: Double? = nil,
            geoidSeparation: Double? = nil
        ) {
            self.timeOfDay = timeOfDay
            self.latitude = latitude
            self.longitude = longitude
            self.quality = quality
            self.satellitesUsed = satellitesUsed
            self.hdop = hdop
            self.altitudeMSL = altitudeMSL
            self.geoidSeparation = geoidSeparation
        }
    }

    /// RMC: recommended minimum (time, validity, position, speed, course, date).
    public struct RMC: Sendable, Hashable {
        public var timeOfDay: Int?
        /// `A` valid, `D` differential, `V` invalid (ASCII), or nil when empty.
        public var status: UInt8?
        public var latitude: Double?
        public var longitude: Double?
        public var speedKnots: Double?
        /// Course over ground, degrees true.
        public var track: Double?
        public var date: NMEADate?
        /// Magnetic variation, degrees, positive east.
        public var magneticVariation: Double?
        /// FAA mode indicator (NMEA 2.3+), ASCII.
        public var faaMode: UInt8?

        public init(
            timeOfDay: Int? = nil, status: UInt8? = nil, latitude: Double? = nil, longitude: Double? = nil,
            speedKnots: Double? = nil, track: Double? = nil, date: NMEADate? = nil,
            magneticVariation: Double? = nil, faaMode: UInt8? = nil
        ) {
            self.timeOfDay = timeOfDay
            self.status = status
            self.latitude = latitude
            self.longitude = longitude
            self.speedKnots = speedKnots
            self.track = track
            self.date = date
            self.magneticVariation = magneticVariation
            self.faaMode = faaMode
        }
    }

    /// GLL: position, time, validity.
    public struct GLL: Sendable, Hashable {
        public var latitude: Double?
        public var longitude: Double?
        public var timeOfDay: Int?
        /// `A` valid, `V` invalid (ASCII), or nil when empty.
        public var status: UInt8?
        public var faaMode: UInt8?

        public init(
            latitude: Double? = nil, longitude: Double? = nil, timeOfDay: Int? = nil, status: UInt8? = nil,
            faaMode: UInt8? = nil
        ) {
            self.latitude = latitude
            self.longitude = longitude
            self.timeOfDay = timeOfDay
            self.status = status
            self.faaMode = faaMode
        }
    }

    /// GSA: fix dimension, satellites used, dilutions of precision.
    public struct GSA: Sendable, Hashable {
        /// `A` automatic or `M` manual (ASCII).
        public var selection: UInt8?
        /// 1 no fix, 2 2D, 3 3D.
        public var fixType: Int?
        /// The satellite IDs (PRNs) used in the solution, in sentence order.
        public var satellites: [Int]
        public var pdop: Double?
        public var hdop: Double?
        public var vdop: Double?

        public init(
            selection: UInt8? = nil, fixType: Int? = nil, satellites: [Int] = [], pdop: Double? = nil,
            hdop: Double? = nil, vdop: Double? = nil
        ) {
            self.selection = selection
            self.fixType = fixType
            self.satellites = satellites
            self.pdop = pdop
            self.hdop = hdop
            self.vdop = vdop
        }
    }

    /// GSV: one part of the satellites-in-view report.
    public struct GSV: Sendable, Hashable {
        public var sentenceCount: Int?
        public var sentenceIndex: Int?
        public var satellitesInView: Int?
        /// The satellites this part describes.
        public var satellites: [Satellite]

        /// One satellite in view: elevation and azimuth in degrees, SNR in dB-Hz.
        public struct Satellite: Sendable, Hashable {
            public var id: Int
            public var elevation: Int?
            public var azimuth: Int?
            public var snr: Int?

            public init(id: Int, elevation: Int? = nil, azimuth: Int? = nil, snr: Int? = nil) {
                self.id = id
                self.elevation = elevation
                self.azimuth = azimuth
                self.snr = snr
            }
        }

        public init(
            sentenceCount: Int? = nil, sentenceIndex: Int? = nil, satellitesInView: Int? = nil,
            satellites: [Satellite] = []
        ) {
            self.sentenceCount = sentenceCount
            self.sentenceIndex = sentenceIndex
            self.satellitesInView = satellitesInView
            self.satellites = satellites
        }
    }

    /// VTG: course and speed over ground.
    public struct VTG: Sendable, Hashable {
        /// Course, degrees true.
        public var track: Double?
        /// Course, degrees magnetic.
        public var magneticTrack: Double?
        public var speedKnots: Double?
        public var speedKilometersPerHour: Double?
        public var faaMode: UInt8?

        public init(
            track: Double? = nil, magneticTrack: Double? = nil, speedKnots: Double? = nil,
            speedKilometersPerHour: Double? = nil, faaMode: UInt8? = nil
        ) {
            self.track = track
            self.magneticTrack = magneticTrack
            self.speedKnots = speedKnots
            self.speedKilometersPerHour = speedKilometersPerHour
            self.faaMode = faaMode
        }
    }

    /// GNS: multi-constellation fix data.
    public struct GNS: Sendable, Hashable {
        public var timeOfDay: Int?
        public var latitude: Double?
        public var longitude: Double?
        /// The first mode indicator letter (`A`, `D`, `N`, ...), ASCII.
        public var mode: UInt8?
        public var satellitesUsed: Int?
        public var hdop: Double?
        public var altitudeMSL: Double?
        public var geoidSeparation: Double?
        /// NMEA 4.1 navigational status (`S`, `C`, `U`, `V`), ASCII.
        public var navigationalStatus: UInt8?

        public init(
            timeOfDay: Int? = nil, latitude: Double? = nil, longitude: Double? = nil, mode: UInt8? = nil,
            satellitesUsed: Int? = nil, hdop: Double? = nil, altitudeMSL: Double? = nil,
            geoidSeparation: Double? = nil, navigationalStatus: UInt8? = nil
        ) {
            self.timeOfDay = timeOfDay
            self.latitude = latitude
            self.longitude = longitude
            self.mode = mode
            self.satellitesUsed = satellitesUsed
            self.hdop = hdop
            self.altitudeMSL = altitudeMSL
            self.geoidSeparation = geoidSeparation
            self.navigationalStatus = navigationalStatus
        }
    }

    /// ZDA: time and full date.
    public struct ZDA: Sendable, Hashable {
        public var timeOfDay: Int?
        public var date: NMEADate?

        public init(timeOfDay: Int? = nil, date: NMEADate? = nil) {
            self.timeOfDay = timeOfDay
            self.date = date
        }
    }

    /// GBS: satellite fault detection. Only its time is read: gpsd 3.22 takes part of
    /// its reporting cycle from it (a u-blox receiver ends its epoch with GBS).
    public struct GBS: Sendable, Hashable {
        public var timeOfDay: Int?

        public init(timeOfDay: Int?) {
            self.timeOfDay = timeOfDay
        }
    }

    /// DBT: depth below transducer, from an echo sounder on the same line as the receiver.
    /// Nothing of it is read: gpsd 3.22 marks it a sentence that continues the reporting
    /// cycle, which changes how the cycle ends from then on (``NMEAEpochAssembler``).
    public struct DBT: Sendable, Hashable {
        public init() {}
    }

    /// GST: pseudorange error statistics, one-sigma metres.
    public struct GST: Sendable, Hashable {
        public var timeOfDay: Int?
        public var rms: Double?
        public var semiMajor: Double?
        public var semiMinor: Double?
        /// Orientation of the semi-major axis, degrees true.
        public var orientation: Double?
        public var latitudeError: Double?
        public var longitudeError: Double?
        public var altitudeError: Double?

        public init(
            timeOfDay: Int? = nil, rms: Double? = nil, semiMajor: Double? = nil, semiMinor: Double? = nil,
            orientation: Double? = nil, latitudeError: Double? = nil, longitudeError: Double? = nil,
            altitudeError: Double? = nil
        ) {
            self.timeOfDay = timeOfDay
            self.rms = rms
            self.semiMajor = semiMajor
            self.semiMinor = semiMinor
            self.orientation = orientation
            self.latitudeError = latitudeError
            self.longitudeError = longitudeError
            self.altitudeError = altitudeError
        }
    }
}
