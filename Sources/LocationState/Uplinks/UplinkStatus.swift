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

}

extension UplinkStatus: Encodable {
    private enum CodingKeys: String, CodingKey {
        case name, `protocol`, url, history, state, lastDeliveredFix, lastDeliveredAt, delivered, backlog, skipped
        case lastAnswer, nextTry
    }

    /// One JSON object; times ISO 8601 UTC, a missing value `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(`protocol`.rawValue, forKey: .protocol)
        try container.encode(url, forKey: .url)
        try container.encode(history.rawValue, forKey: .history)
        try container.encode(state.rawValue, forKey: .state)
        try container.encode(lastDeliveredFix.map(UTCCalendar.iso8601), forKey: .lastDeliveredFix)
        try container.encode(lastDeliveredAt.map(UTCCalendar.iso8601), forKey: .lastDeliveredAt)
        try container.encode(delivered, forKey: .delivered)
        try container.encode(backlog, forKey: .backlog)
        try container.encode(skipped, forKey: .skipped)
        try container.encode(lastAnswer, forKey: .lastAnswer)
        try container.encode(nextTry.map(UTCCalendar.iso8601), forKey: .nextTry)
    }
}
