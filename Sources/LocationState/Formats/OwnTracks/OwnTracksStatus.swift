import Foundation

/// What locationd says about its fix on the status topic (`TOPIC/status`, retained),
/// and its last will.
///
/// OwnTracks apps publish `_type: "status"` there too. locationd's form is
/// `{"_type":"status","state":"stale","source":"gpsd","lastFix":1763884800,"created_at":...}`,
/// `state` being `?STATUS;`'s name (`live`, `stale`, `lost`, `nofix`, `waiting`,
/// `connecting`, `restored`) or `stopped` when the daemon shut down. A dashboard reads
/// the retained status next to the retained location: unless the state is `live`, the
/// location is the last one known, not a current one.
///
/// The last will is the booklet's `{"_type":"lwt","tst":N}` (`tst` the time the client
/// connected), set on the status topic and retained, so that a daemon that vanished
/// replaces a `live` status instead of leaving it standing.
public enum OwnTracksStatus {
    /// The status message for `state` (one of the names above).
    public static func payload(state: String, source: FixSource?, lastFix: Date?, createdAt: Date) -> [UInt8] {
        encoded(
            Message(
                state: state, source: source?.rawValue, lastFix: lastFix.map(seconds), createdAt: seconds(createdAt)))
    }

    /// The last will: `{"_type":"lwt","tst":N}` with `tst` the time of connecting.
    public static func lastWill(connectedAt: Date) -> [UInt8] {
        encoded(LastWill(tst: seconds(connectedAt)))
    }

    private static func seconds(_ date: Date) -> Int { Int(saturating: date.timeIntervalSince1970.rounded(.down)) }

    private static func encoded(_ value: some Encodable) -> [UInt8] {
        Array(JSONLineEncoder().encodeFinite(value).utf8)
    }

    private struct Message: Encodable {
        var type = "status"
        var state: String
        var source: String?
        var lastFix: Int?
        var createdAt: Int

        enum CodingKeys: String, CodingKey { case type = "_type", state, source, lastFix, createdAt = "created_at" }
    }

    private struct LastWill: Encodable {
        var type = "lwt"
        var tst: Int

        enum CodingKeys: String, CodingKey { case type = "_type", tst }
    }
}
