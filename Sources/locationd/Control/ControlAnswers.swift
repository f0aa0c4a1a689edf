import Foundation
import LocationState

/// The JSON objects the daemon answers with, built from its states.
enum ControlAnswers {
    /// The TPV object that says no fix is known at all.
    static let noFixKnown = #"{"class":"TPV","mode":0,"state":"none"}"#

    /// How a region event's line starts (``RegionEvent/jsonString``), which a `?WATCH;` stream carries besides TPV lines.
    static let regionEventPrefix = #"{"class":"REGION""#

    /// `?LAST;`: the current fix (`"state":"live"`), else the last known one marked
    /// `stale` (this run) or `restored` (from disk), with `age` in seconds; else a
    /// TPV object of mode 0 with `"state":"none"`.
    static func last(current: Location?, lastKnown: Location?, now: Date) -> String {
        let fix: Location
        let state: String
        if let current {
            fix = current
            state = "live"
        } else if let lastKnown {
            fix = lastKnown
            state = lastKnown.source == .restored ? "restored" : "stale"
        } else {
            return noFixKnown
        }
        return tpv(fix, ageSeconds: fix.time.map { now.timeIntervalSince($0) }, state: state)
    }

    /// A fix as a TPV object with `age` (seconds, when the fix has a time) and `state` added,
    /// as `?LAST;` answers and `locationd last --json` prints.
    static func tpv(_ fix: Location, ageSeconds: Double?, state: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320)
        fix.appendJSON(to: &bytes)
        bytes.removeLast()
        if let ageSeconds {
            bytes.append(contentsOf: #","age":"#.utf8)
            bytes.append(contentsOf: String(format: "%.3f", ageSeconds).utf8)
        }
        bytes.append(contentsOf: #","state":""#.utf8)
        bytes.append(contentsOf: state.utf8)
        bytes.append(contentsOf: #""}"#.utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `?STATUS;`: source in use, connection, freshness, counts, uptime; with MQTT on,
    /// `"mqtt":{"connected":BOOL,"queued":N,"dropped":N}` (messages waiting in the outbox;
    /// dropped since the start, beyond its bounds or not storable).
    static func status(
        _ status: ProviderStatus, fixes: Int, uptimeSeconds: Double, mqtt: MQTTPublisher.Snapshot? = nil
    ) -> String {
        var fields = [
            #""class":"STATUS""#,
            #""source":"\#(status.source.rawValue)""#,
            #""state":"\#(status.name)""#,
            #""connected":\#(status.isConnected)"#,
            #""fixes":\#(fixes)"#,
            #""uptime":\#(String(format: "%.1f", uptimeSeconds))"#,
        ]
        if let lastFix = status.lastFix {
            fields.append(#""lastFix":"\#(lastFix.formatted(.iso8601))""#)
        }
        if case .lost(_, let reason, _) = status {
            fields.append(#""reason":"# + ControlReply.jsonString(reason))
        }
        if let mqtt {
            fields.append(
                #""mqtt":{"connected":\#(mqtt.connected),"queued":\#(mqtt.queued),"dropped":\#(mqtt.dropped)}"#)
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// `?REGIONS;`: `{"class":"REGIONS","file":…,"count":…,"inside":[…],"pending":[…]}`, the
    /// region file, how many regions it holds, and the identifiers of those the device is
    /// in and of those it waits to dwell in, sorted.
    static func regions(file: String, count: Int, membership: MembershipState) -> String {
        let inside = membership.inside.sorted().map { ControlReply.jsonString($0.rawValue) }
        let pending = membership.pendingSince.keys.sorted().map { ControlReply.jsonString($0.rawValue) }
        return #"{"class":"REGIONS","file":"# + ControlReply.jsonString(file) + #","count":\#(count),"inside":["#
            + inside.joined(separator: ",") + #"],"pending":["# + pending.joined(separator: ",") + "]}"
    }

    /// One `?WATCH;` line: the fix, or a TPV of mode 1 when the location became unknown.
    static func watchLine(_ location: Location?) -> String {
        location?.jsonString ?? #"{"class":"TPV","mode":1}"#
    }
}
