import Foundation

/// The device entered or left a region.
public struct RegionEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case enter, leave
    }

    public var kind: Kind
    public var region: RegionID
    /// The region's name when the event happened.
    public var name: String
    /// The time of the fix that made the transition (its arrival time when it had none).
    public var time: Date
    /// Where that fix was.
    public var lat: Double
    public var lon: Double
    /// That fix's horizontal error, metres, when known.
    public var eph: Double?
    /// The fix came from the simulator: the device did not really go there.
    public var simulated: Bool

    public init(
        kind: Kind, region: RegionID, name: String, time: Date, lat: Double, lon: Double, eph: Double? = nil,
        simulated: Bool = false
    ) {
        self.kind = kind
        self.region = region
        self.name = name
        self.time = time
        self.lat = lat
        self.lon = lon
        self.eph = eph
        self.simulated = simulated
    }
}
