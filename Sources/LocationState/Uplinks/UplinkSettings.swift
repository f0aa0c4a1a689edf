import Foundation
import LocationState
import LocationTimeline

/// The uplink settings of `locationd run`: `uplink` (repeatable: one target each, see
/// ``UplinkTarget/parse(_:origin:visible:hostName:)``), and the publishing policy's
/// `uplink-min-interval`, `uplink-min-distance` and `uplink-stopped-interval`, the same
/// policy MQTT follows (``PublishingPolicy``).
///
/// A target is known by its name: one set by a later layer (the environment over the
/// file, a flag over both) replaces the target of that name; two of one name in the
/// same layer are an error. In the environment, `LOCATIOND_UPLINK` and
/// `LOCATIOND_UPLINK_1` … hold one target each.
public struct UplinkSettings: Sendable, Equatable {
    public var targets: [UplinkTarget] = []
    /// By default a fix every 5 s while moving (``defaultInterval``), the stop at once, and
    /// a heartbeat every 15 minutes while parked.
    public var policy = PublishingPolicy(minimumInterval: Self.defaultInterval)
    /// Seconds between two fixes sent while moving, by default: the trips a server draws
    /// keep their shape (5 s is 150 m at motorway speed), and each target costs the
    /// daemon one request per 5 s instead of one per epoch (`uplink-min-interval = 0`
    /// sends every fix; docs/performance.md has the cost of each).
    public static let defaultInterval = 5.0
    /// Where each target's setting came from, by name.
    private var origins: [String: String] = [:]

    public init() {}

    /// Applies one setting; false when `key` is not an uplink setting.
    public mutating func apply(
        key: String, value: String, origin: String, hostName: String = ProcessInfo.processInfo.hostName
    ) throws(LocationError) -> Bool {
        if key == "uplink" || Self.isNumberedUplink(key) {
            let target = try UplinkTarget.parse(
                value, origin: origin, visible: origin.hasPrefix("--"), hostName: hostName)
            if let earlier = origins[target.name], Self.layer(earlier) == Self.layer(origin) {
                throw .usage(
                    "\(origin): a second uplink named \(target.name) (the first is at \(earlier)); give one a name=")
            }
            targets.removeAll { $0.name == target.name }
            targets.append(target)
            origins[target.name] = origin
            return true
        }
        guard ["uplink-min-interval", "uplink-min-distance", "uplink-stopped-interval"].contains(key) else {
            return false
        }
        try policy.apply(key: key, value: value, origin: origin)
        return true
    }

    /// `uplink-1`, `uplink-2`, … (from `LOCATIOND_UPLINK_1`, …).
    private static func isNumberedUplink(_ key: String) -> Bool {
        key.hasPrefix("uplink-") && !key.dropFirst(7).isEmpty && key.dropFirst(7).allSatisfy(\.isNumber)
    }

    /// The layer an origin names: the file (`PATH:LINE`), the environment (`$NAME`) or the flags.
    private static func layer(_ origin: String) -> String {
        if origin.hasPrefix("--") { return "flags" }
        if origin.hasPrefix("$") { return "environment" }
        return String(origin[..<(origin.lastIndex(of: ":") ?? origin.endIndex)])
    }

    public static func == (lhs: UplinkSettings, rhs: UplinkSettings) -> Bool {
        lhs.targets == rhs.targets && lhs.policy == rhs.policy
    }
}
