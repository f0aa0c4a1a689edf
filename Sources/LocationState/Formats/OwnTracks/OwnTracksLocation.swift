import Foundation
import LocationState

/// A fix as an OwnTracks `_type: "location"` message, the payload Home Assistant's
/// OwnTracks integration, the OwnTracks Recorder and Frontend read.
///
/// Field names and units follow the OwnTracks booklet's JSON page: `lat`, `lon`
/// (degrees, 7 decimals, about a centimetre), `tst` (the fix's time, integer epoch
/// seconds), `acc` (horizontal accuracy, integer metres from `eph`, at least 1), `alt` (integer
/// metres above mean sea level; above the ellipsoid only when MSL is unknown), `vac`
/// (vertical accuracy, integer metres, from `epv`), `vel` (integer km/h from m/s),
/// `cog` (course over ground, integer degrees), `tid` (two characters), `t` (trigger)
/// and `created_at` (when the message was made, integer epoch seconds); plus
/// locationd's own `source`, so that a simulated, replayed or restored fix is never
/// taken for a live one; and, over HTTP, `topic` (see ``topic``). A value the fix does
/// not have is left out, never sent as 0; `batt` is never sent (a GNSS receiver has no
/// battery level to report).
public struct OwnTracksLocation: Sendable, Equatable {
    /// Why the message was published: the booklet's `t`.
    public enum Trigger: String, Sendable {
        /// `t`: "timer based publish in move mode", which is what locationd's publishing
        /// policy is (every fix, or one per interval unless moved); every regular fix.
        case timer = "t"
        /// `p`: a ping; the last known position published again, not a new fix.
        case ping = "p"
    }

    public var location: Location
    /// The tracker ID, at most two characters (longer values are cut to the last two).
    public var trackerID: String
    public var trigger: Trigger
    /// When the message is made (its `created_at`).
    public var createdAt: Date
    /// The `topic` member, `owntracks/USER/DEVICE`, which the OwnTracks iOS app puts into
    /// the JSON in HTTP mode: Traccar's OwnTracks protocol names the device by it (else by
    /// the tracker ID), Dawarich converts `vel` from km/h only when it is there, and Home
    /// Assistant's webhook prefers it to the `X-Limit-U`/`X-Limit-D` headers. Nil (over
    /// MQTT, where the topic is the message's own) leaves it out.
    public var topic: String?

    public init(
        _ location: Location, trackerID: String, trigger: Trigger = .timer, createdAt: Date, topic: String? = nil
    ) {
        self.location = location
        self.trackerID = trackerID
        self.trigger = trigger
        self.createdAt = createdAt
        self.topic = topic
    }

    /// The default tracker ID for a device name: its last two characters.
    public static func trackerID(forDevice name: String) -> String { String(name.suffix(2)) }

    /// The JSON payload, or nil when the fix has no position or no time (OwnTracks
    /// requires `lat`, `lon` and `tst`; a reader such as Home Assistant's OwnTracks
    /// integration or the Recorder would take a location without `tst` for one of 1970).
    public var payload: [UInt8]? {
        guard let lat = location.lat, let lon = location.lon, lat.isFinite, lon.isFinite,
            let tst = location.time?.timeIntervalSince1970.rounded(.down), Self.isWritable(tst)
        else { return nil }
        var out: [UInt8] = []
        let tid = String(trackerID.suffix(2))
        // Keys and quotes (110), two decimals (32 each), eight integers (25 each), the
        // trigger and the source (12), the topic's key (10); the tracker ID and the topic 6
        // bytes per byte at worst.
        ByteWriter.append(to: &out, capacity: 410 + 6 * (tid.utf8.count + (topic?.utf8.count ?? 0))) { out in
            out.literal(#"{"_type":"location","lat":"#)
            out.decimal(lat, decimals: 7)
            out.literal(#","lon":"#)
            out.decimal(lon, decimals: 7)
            Self.integer(#","tst":"#, tst, &out)
            // At least 1: Home Assistant drops a location whose `acc` is 0 (with a warning),
            // which a fix better than half a metre would round to.
            if let eph = location.eph, eph.isFinite { Self.integer(#","acc":"#, max(1, eph.rounded()), &out) }
            if let alt = location.altMSL ?? location.altHAE { Self.integer(#","alt":"#, alt.rounded(), &out) }
            if let epv = location.epv { Self.integer(#","vac":"#, epv.rounded(), &out) }
            if let speed = location.speed { Self.integer(#","vel":"#, (speed * 3.6).rounded(), &out) }
            if let track = location.track {
                // 359.6° rounds to 360, which is 0.
                Self.integer(#","cog":"#, track.rounded().truncatingRemainder(dividingBy: 360), &out)
            }
            out.literal(#","tid":"#)
            out.jsonString(tid)
            out.literal(#","t":""#)
            switch trigger {
            case .timer: out.byte(UInt8(ascii: "t"))
            case .ping: out.byte(UInt8(ascii: "p"))
            }
            out.byte(UInt8(ascii: "\""))
            Self.integer(#","created_at":"#, createdAt.timeIntervalSince1970.rounded(.down), &out)
            out.literal(#","source":"#)
            out.jsonString(location.source.rawValue)
            if let topic {
                out.literal(#","topic":"#)
                out.jsonString(topic)
            }
            out.byte(UInt8(ascii: "}"))
        }
        return out
    }

    /// Whether `value` is written as an integer: finite and within ±2^53.
    private static func isWritable(_ value: Double) -> Bool { value.isFinite && abs(value) < 9.0e15 }

    /// Writes `,"key":N` for a finite value within ±2^53.
    private static func integer(_ key: StaticString, _ value: Double, _ out: inout ByteWriter) {
        guard isWritable(value) else { return }
        out.literal(key)
        out.integer(Int(value))
    }
}
