import Foundation
import LocationState

/// What a user reads about one target: `locationd uplinks`, `?STATUS;`'s `uplinks` and
/// `/api/v1/uplinks`.
public struct UplinkStatus: Sendable, Equatable {
    public var name: String
    public var `protocol`: UplinkProtocol
    /// The URL with its secrets masked.
    public var url: String
    public var history: UplinkHistory
    /// The newest fix time the server has from this daemon.
    public var lastDeliveredFix: Date?
    /// When the last delivery's answer came.
    public var lastDeliveredAt: Date?
    /// Fixes delivered since the daemon started.
    public var delivered = 0
    /// Fixes waiting for this target.
    public var backlog = 0
    /// Fixes passed over with `history = latest`, since the daemon started.
    public var skipped = 0
    /// The last answer or error, in the server's words (`HTTP 200`, `HTTP 401: …`,
    /// `connection refused`).
    public var lastAnswer: String?
    /// The state: `delivering` (up to date or sending), `retrying` (unreachable or
    /// failing), `refused` (the server refuses the fixes; they wait).
    public var state: State = .delivering
    /// When the next try is due, while retrying or refused.
    public var nextTry: Date?

    public enum State: String, Sendable {
        case delivering, retrying, refused
    }

    public init(target: UplinkTarget) {
        name = target.name
        `protocol` = target.protocol
        url = target.maskedURL
        history = target.history
    }

    /// The status as one JSON object (times ISO 8601 UTC; a missing value is `null`).
    public var json: [UInt8] {
        var out: [UInt8] = []
        ByteWriter.append(to: &out, capacity: 512 + 6 * (name.utf8.count + url.utf8.count + (lastAnswer?.utf8.count ?? 0))) {
            out in
            out.literal(#"{"name":"#)
            out.jsonString(name)
            out.literal(#","protocol":"#)
            out.jsonString(`protocol`.rawValue)
            out.literal(#","url":"#)
            out.jsonString(url)
            out.literal(#","history":"#)
            out.jsonString(history.rawValue)
            out.literal(#","state":"#)
            out.jsonString(state.rawValue)
            Self.time(#","lastDeliveredFix":"#, lastDeliveredFix, &out)
            Self.time(#","lastDeliveredAt":"#, lastDeliveredAt, &out)
            out.literal(#","delivered":"#)
            out.integer(delivered)
            out.literal(#","backlog":"#)
            out.integer(backlog)
            out.literal(#","skipped":"#)
            out.integer(skipped)
            out.literal(#","lastAnswer":"#)
            if let lastAnswer { out.jsonString(lastAnswer) } else { out.literal("null") }
            Self.time(#","nextTry":"#, nextTry, &out)
            out.byte(UInt8(ascii: "}"))
        }
        return out
    }

    private static func time(_ key: StaticString, _ date: Date?, _ out: inout ByteWriter) {
        out.literal(key)
        guard let date else { return out.literal("null") }
        out.byte(UInt8(ascii: "\""))
        out.iso8601(date)
        out.byte(UInt8(ascii: "\""))
    }

    /// Several targets' statuses as a JSON array.
    public static func json(_ statuses: [UplinkStatus]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, status) in statuses.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += status.json
        }
        out.append(UInt8(ascii: "]"))
        return out
    }
}
