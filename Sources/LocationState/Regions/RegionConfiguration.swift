import LocationState

/// The settings of region monitoring, from `locationd run`'s flags and configuration file.
///
/// Keys (the daemon configuration delegates them here):
/// - `regions = FILE`: the GeoJSON region file (without it, no region monitoring);
/// - `on-enter = COMMAND ARGS...`, `on-leave = ...`: run for each event, without a
///   shell (arguments split at white space, quotes group), see ``RegionHooks``;
/// - `region-dwell = SECONDS`: time inside before an enter counts (default 0);
/// - `region-leave-margin = METRES`: the leave margin with a perfect fix (default 10;
///   the fix's `eph` is added);
/// - `region-hook-timeout = SECONDS`: a hook still running then is killed (default 10);
/// - `region-initial-enter = true|false`: report the regions the first fix is in as
///   enters (default false, as CoreLocation).
public struct RegionConfiguration: Sendable, Equatable {
    public var regionsPath: String?
    public var onEnter: [String]?
    public var onLeave: [String]?
    public var options = RegionMembership.Options()
    public var hookTimeout: Duration = .seconds(10)

    public init() {}

    /// Applies one `key = value` setting if the key is one of these; returns false for
    /// another key. `origin` names where the setting came from, for errors.
    public mutating func apply(key: String, value: String, origin: String) throws(LocationError) -> Bool {
        switch key {
        case "regions":
            guard !value.isEmpty else { throw .usage("\(origin): regions needs the path of a GeoJSON file") }
            regionsPath = value
        case "on-enter", "on-leave":
            let command = RegionHooks.arguments(value)
            guard !command.isEmpty else { throw .usage("\(origin): \(key) needs a command") }
            if key == "on-enter" { onEnter = command } else { onLeave = command }
        case "region-dwell":
            options.dwell = .milliseconds(
                Int64(try Self.seconds(value, key: key, origin: origin, allowZero: true) * 1000))
        case "region-leave-margin":
            guard let metres = Double(value), metres >= 0, metres <= 10_000 else {
                throw .usage(
                    "\(origin): region-leave-margin must be a number of metres from 0 to 10000, not '\(value)'")
            }
            options.minimumLeaveMargin = metres
        case "region-hook-timeout":
            hookTimeout = .milliseconds(
                Int64(try Self.seconds(value, key: key, origin: origin, allowZero: false) * 1000))
        case "region-initial-enter":
            guard let flag = ["true": true, "yes": true, "1": true, "false": false, "no": false, "0": false][value]
            else {
                throw .usage("\(origin): region-initial-enter must be true or false, not '\(value)'")
            }
            options.notifyInitialState = flag
        default:
            return false
        }
        return true
    }

    private static func seconds(_ value: String, key: String, origin: String, allowZero: Bool) throws(LocationError)
        -> Double
    {
        let text = value.hasSuffix("s") ? String(value.dropLast()) : value
        guard let seconds = Double(text), seconds.isFinite, allowZero ? seconds >= 0 : seconds > 0,
            seconds <= 86_400
        else {
            throw .usage(
                "\(origin): \(key) must be a number of seconds \(allowZero ? "from 0" : "above 0") up to 86400, not '\(value)'"
            )
        }
        return seconds
    }
}
