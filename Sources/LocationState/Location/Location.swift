import Foundation

/// One fix: where the device was, when, and how well that is known.
///
/// Field names and units follow gpsd's TPV report (gpsd_json(5)) so that the JSON
/// reads like gpsd's own: angles in degrees, distances in metres, speeds in metres
/// per second, times in UTC. An absent value is `nil`, never 0 or NaN.
public struct Location: Sendable, Hashable {
    /// Fix dimension (gpsd `mode`).
    public var mode: FixMode
    /// gpsd's fix status: 0 unknown, 1 normal, 2 DGPS, 3 RTK fixed, 4 RTK float,
    /// 5 dead reckoning, 6 GNSS + dead reckoning, 7 time only, 8 simulated.
    public var status: Int?
    /// Satellites used in the solution.
    public var satellitesUsed: Int?
    /// Where the fix came from.
    public var source: FixSource
    /// The receiver's device path, when known (`/dev/ttyUSB0`).
    public var device: String?

    /// UTC time of the fix, when the receiver reported one.
    public var time: Date? {
        get { measurements.time }
        set { measurements.time = newValue }
    }
    /// Latitude in degrees, positive north.
    public var lat: Double? {
        get { measurements[.lat] }
        set { measurements[.lat] = newValue }
    }
    /// Longitude in degrees, positive east.
    public var lon: Double? {
        get { measurements[.lon] }
        set { measurements[.lon] = newValue }
    }
    /// Altitude above the WGS84 ellipsoid, metres.
    public var altHAE: Double? {
        get { measurements[.altHAE] }
        set { measurements[.altHAE] = newValue }
    }
    /// Altitude above mean sea level, metres.
    public var altMSL: Double? {
        get { measurements[.altMSL] }
        set { measurements[.altMSL] = newValue }
    }
    /// Speed over ground, metres per second.
    public var speed: Double? {
        get { measurements[.speed] }
        set { measurements[.speed] = newValue }
    }
    /// Course over ground, degrees true.
    public var track: Double? {
        get { measurements[.track] }
        set { measurements[.track] = newValue }
    }
    /// Vertical speed, metres per second, positive up.
    public var climb: Double? {
        get { measurements[.climb] }
        set { measurements[.climb] = newValue }
    }
    /// Estimated horizontal position error, metres (95 % confidence, as gpsd).
    public var eph: Double? {
        get { measurements[.eph] }
        set { measurements[.eph] = newValue }
    }
    /// Estimated vertical position error, metres.
    public var epv: Double? {
        get { measurements[.epv] }
        set { measurements[.epv] = newValue }
    }
    /// Estimated speed error, metres per second.
    public var eps: Double? {
        get { measurements[.eps] }
        set { measurements[.eps] = newValue }
    }
    /// Estimated climb error, metres per second.
    public var epc: Double? {
        get { measurements[.epc] }
        set { measurements[.epc] = newValue }
    }
    /// Estimated longitude error, metres.
    public var epx: Double? {
        get { measurements[.epx] }
        set { measurements[.epx] = newValue }
    }
    /// Estimated latitude error, metres.
    public var epy: Double? {
        get { measurements[.epy] }
        set { measurements[.epy] = newValue }
    }
    /// Height of the geoid above the WGS84 ellipsoid, metres (`altHAE - altMSL`).
    public var geoidSep: Double? {
        get { measurements[.geoidSep] }
        set { measurements[.geoidSep] = newValue }
    }
    /// Horizontal dilution of precision.
    public var hdop: Double? {
        get { measurements[.hdop] }
        set { measurements[.hdop] = newValue }
    }

    /// The optional measurements above; internal so that validation and ``completing(_:)``
    /// walk them field by field.
    package var measurements = Measurements()

    public init(
        time: Date? = nil,
        mode: FixMode = .unknown,
        status: Int? = nil,
        lat: Double? = nil,
        lon: Double? = nil,
        altHAE: Double? = nil,
        altMSL: Double? = nil,
        speed: Double? = nil,
        track: Double? = nil,
        climb: Double? = nil,
        eph: Double? = nil,
        epv: Double? = nil,
        eps: Double? = nil,
        epc: Double? = nil,
        epx: Double? = nil,
        epy: Double? = nil,
        geoidSep: Double? = nil,
        satellitesUsed: Int? = nil,
        hdop: Double? = nil,
        source: FixSource,
        device: String? = nil
    ) {
        self.mode = mode
        self.status = status
        self.satellitesUsed = satellitesUsed
        self.source = source
        self.device = device
        self.time = time
        self.lat = lat
        self.lon = lon
        self.altHAE = altHAE
        self.altMSL = altMSL
        self.speed = speed
        self.track = track
        self.climb = climb
        self.eph = eph
        self.epv = epv
        self.eps = eps
        self.epc = epc
        self.epx = epx
        self.epy = epy
        self.geoidSep = geoidSep
        self.hdop = hdop
    }

    /// Whether this is a usable position: a 2D or 3D fix with latitude and longitude.
    public var hasPosition: Bool { mode.hasPosition && lat != nil && lon != nil }
}
