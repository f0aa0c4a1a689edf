import Foundation

/// One fix: where the device was, when, and how well that is known.
///
/// Field names and units follow gpsd's TPV report (gpsd_json(5)) so that the JSON
/// reads like gpsd's own: angles in degrees, distances in metres, speeds in metres
/// per second, times in UTC. An absent value is `nil`, never 0 or NaN.
public struct Location: Sendable, Hashable {
    // Storage: each optional measurement is a plain value plus a bit in `present`, and
    // an absent one is stored as zero, so that the synthesized `==` and `hash(into:)`
    // mean what they would with optionals. A fix is thus about half the size it would
    // be with 16 optionals (16 bytes each), and it is copied several times on its way
    // through a `MonitoredState` to each listener.
    private var present: UInt16 = 0
    private var storedTime: Date = Date(timeIntervalSinceReferenceDate: 0)
    private var storedLat: Double = 0
    private var storedLon: Double = 0
    private var storedAltHAE: Double = 0
    private var storedAltMSL: Double = 0
    private var storedSpeed: Double = 0
    private var storedTrack: Double = 0
    private var storedClimb: Double = 0
    private var storedEph: Double = 0
    private var storedEpv: Double = 0
    private var storedEps: Double = 0
    private var storedEpc: Double = 0
    private var storedEpx: Double = 0
    private var storedEpy: Double = 0
    private var storedGeoidSep: Double = 0
    private var storedHdop: Double = 0

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
        get { present & 1 << 0 != 0 ? storedTime : nil }
        set { Location.store(newValue, in: &storedTime, bit: 1 << 0, of: &present) }
    }
    /// Latitude in degrees, positive north.
    public var lat: Double? {
        get { present & 1 << 1 != 0 ? storedLat : nil }
        set { Location.store(newValue, in: &storedLat, bit: 1 << 1, of: &present) }
    }
    /// Longitude in degrees, positive east.
    public var lon: Double? {
        get { present & 1 << 2 != 0 ? storedLon : nil }
        set { Location.store(newValue, in: &storedLon, bit: 1 << 2, of: &present) }
    }
    /// Altitude above the WGS84 ellipsoid, metres.
    public var altHAE: Double? {
        get { present & 1 << 3 != 0 ? storedAltHAE : nil }
        set { Location.store(newValue, in: &storedAltHAE, bit: 1 << 3, of: &present) }
    }
    /// Altitude above mean sea level, metres.
    public var altMSL: Double? {
        get { present & 1 << 4 != 0 ? storedAltMSL : nil }
        set { Location.store(newValue, in: &storedAltMSL, bit: 1 << 4, of: &present) }
    }
    /// Speed over ground, metres per second.
    public var speed: Double? {
        get { present & 1 << 5 != 0 ? storedSpeed : nil }
        set { Location.store(newValue, in: &storedSpeed, bit: 1 << 5, of: &present) }
    }
    /// Course over ground, degrees true.
    public var track: Double? {
        get { present & 1 << 6 != 0 ? storedTrack : nil }
        set { Location.store(newValue, in: &storedTrack, bit: 1 << 6, of: &present) }
    }
    /// Vertical speed, metres per second, positive up.
    public var climb: Double? {
        get { present & 1 << 7 != 0 ? storedClimb : nil }
        set { Location.store(newValue, in: &storedClimb, bit: 1 << 7, of: &present) }
    }
    /// Estimated horizontal position error, metres (95 % confidence, as gpsd).
    public var eph: Double? {
        get { present & 1 << 8 != 0 ? storedEph : nil }
        set { Location.store(newValue, in: &storedEph, bit: 1 << 8, of: &present) }
    }
    /// Estimated vertical position error, metres.
    public var epv: Double? {
        get { present & 1 << 9 != 0 ? storedEpv : nil }
        set { Location.store(newValue, in: &storedEpv, bit: 1 << 9, of: &present) }
    }
    /// Estimated speed error, metres per second.
    public var eps: Double? {
        get { present & 1 << 10 != 0 ? storedEps : nil }
        set { Location.store(newValue, in: &storedEps, bit: 1 << 10, of: &present) }
    }
    /// Estimated climb error, metres per second.
    public var epc: Double? {
        get { present & 1 << 11 != 0 ? storedEpc : nil }
        set { Location.store(newValue, in: &storedEpc, bit: 1 << 11, of: &present) }
    }
    /// Estimated longitude error, metres.
    public var epx: Double? {
        get { present & 1 << 12 != 0 ? storedEpx : nil }
        set { Location.store(newValue, in: &storedEpx, bit: 1 << 12, of: &present) }
    }
    /// Estimated latitude error, metres.
    public var epy: Double? {
        get { present & 1 << 13 != 0 ? storedEpy : nil }
        set { Location.store(newValue, in: &storedEpy, bit: 1 << 13, of: &present) }
    }
    /// Height of the geoid above the WGS84 ellipsoid, metres (`altHAE - altMSL`).
    public var geoidSep: Double? {
        get { present & 1 << 14 != 0 ? storedGeoidSep : nil }
        set { Location.store(newValue, in: &storedGeoidSep, bit: 1 << 14, of: &present) }
    }
    /// Horizontal dilution of precision.
    public var hdop: Double? {
        get { present & 1 << 15 != 0 ? storedHdop : nil }
        set { Location.store(newValue, in: &storedHdop, bit: 1 << 15, of: &present) }
    }

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

    /// Stores `value` and its presence bit; an absent value is stored as `zero`.
    @inline(__always)
    private static func store<Value>(
        _ value: Value?, in stored: inout Value, bit: UInt16, of present: inout UInt16, zero: Value
    ) {
        if let value {
            stored = value
            present |= bit
        } else {
            stored = zero
            present &= ~bit
        }
    }

    @inline(__always)
    private static func store(_ value: Double?, in stored: inout Double, bit: UInt16, of present: inout UInt16) {
        store(value, in: &stored, bit: bit, of: &present, zero: 0)
    }

    @inline(__always)
    private static func store(_ value: Date?, in stored: inout Date, bit: UInt16, of present: inout UInt16) {
        store(value, in: &stored, bit: bit, of: &present, zero: Date(timeIntervalSinceReferenceDate: 0))
    }

    /// Whether this is a usable position: a 2D or 3D fix with latitude and longitude.
    public var hasPosition: Bool { mode.hasPosition && lat != nil && lon != nil }
}
