import Foundation

/// A fix as a stand-in server kept it: the values the real server would store, in its units.
package struct StoredFix: Sendable, Equatable {
    /// The device as the server names it (Traccar: the unique id; the Recorder:
    /// `user/device`; Home Assistant: the tracker's `dev_id`; Dawarich: the tracker id,
    /// `tid` or `device_id`, empty without one; PhoneTrack: the device name it chose;
    /// Reitti: the token, whose device it is).
    package var device: String
    package var latitude: Double
    package var longitude: Double
    /// The fix's time as the server stores it; nil where the server takes the time of
    /// arrival instead (no timestamp sent, or a server that ignores it).
    package var time: Date?
    /// The speed the server stores, in metres per second (converted back from the unit
    /// the protocol carries: Traccar keeps knots); nil when none was sent, or where the
    /// server keeps the number without a unit (Home Assistant's attributes, see `fields`).
    package var speedMetersPerSecond: Double?
    /// Horizontal accuracy in metres.
    package var accuracy: Double?
    package var altitude: Double?
    /// Course over ground in degrees.
    package var course: Double?
    /// When the stand-in stored it.
    package var arrival: Date
    /// Every field as the server read it, by name (the last value of a repeated one), as text.
    package var fields: [String: String]

    package init(
        device: String, latitude: Double, longitude: Double, time: Date?, speedMetersPerSecond: Double? = nil,
        accuracy: Double? = nil, altitude: Double? = nil, course: Double? = nil, arrival: Date = Date(),
        fields: [String: String] = [:]
    ) {
        self.device = device
        self.latitude = latitude
        self.longitude = longitude
        self.time = time
        self.speedMetersPerSecond = speedMetersPerSecond
        self.accuracy = accuracy
        self.altitude = altitude
        self.course = course
        self.arrival = arrival
        self.fields = fields
    }

    /// The time the server orders by: the fix's, else the arrival.
    package var effectiveTime: Date { time ?? arrival }
}

/// One request a stand-in received, and what became of it.
package struct RecordedRequest: Sendable {
    /// What the stand-in did with the request.
    package enum Outcome: Sendable, Equatable {
        /// Not answered yet: hanging, or waiting out a slow answer.
        case pending
        /// Answered with this status (also when the client had gone by then).
        case answered(status: Int)
        /// The connection was closed without an answer (Traccar, on a value it cannot read).
        case closedWithoutAnswer
        /// Part of an answer with this status was sent, then the connection was closed.
        case closedMidAnswer(status: Int)
    }

    package let method: String
    /// The request target: the path and the query, as sent.
    package let target: String
    /// The header fields in order, names as sent.
    package let headers: [(name: String, value: String)]
    package let body: [UInt8]
    package internal(set) var outcome: Outcome = .pending
    /// Why the server dropped or refused what the request carried, in a few words (for a
    /// test's message); nil when it kept it, or did not read it (``UplinkServer/Behaviour/answer(status:headers:body:)``).
    package internal(set) var dropped: String?

    package init(method: String, target: String, headers: [(name: String, value: String)], body: [UInt8]) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The status answered in full; nil when the request hung, or the connection closed.
    package var status: Int? {
        if case .answered(let status) = outcome { return status }
        return nil
    }

    /// The path, without the query.
    package var path: String { String(target.prefix { $0 != "?" }) }

    /// The raw query after the first `?` (empty when there is none).
    package var query: [UInt8] {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return [] }
        return Array(target.utf8[target.utf8.index(after: mark)...])
    }

    /// The first value of the header `name`, compared without case as HTTP does.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The body as text.
    package var text: String { String(decoding: body, as: UTF8.self) }
}

/// What a stand-in answers to one request.
package enum UplinkReply: Sendable, Equatable {
    /// An HTTP answer (`Content-Length` is added).
    case answer(status: Int, headers: [String: String], body: String)
    /// The connection closed without an answer: what Traccar does when its decoder throws.
    case closeWithoutAnswer

    /// An answer with a JSON body.
    package static func json(_ status: Int, _ body: String) -> UplinkReply {
        .answer(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body)
    }

    /// An answer with a plain text body (or none).
    package static func text(_ status: Int, _ body: String = "") -> UplinkReply {
        .answer(status: status, headers: body.isEmpty ? [:] : ["Content-Type": "text/plain; charset=utf-8"], body: body)
    }
}

/// What a server made of one request: its reply, the fixes it kept, and why it dropped
/// one that it answered as if kept (for a test's message).
package struct UplinkDecision: Sendable {
    package var reply: UplinkReply
    package var kept: [StoredFix] = []
    package var dropped: String?

    package init(_ reply: UplinkReply, kept: [StoredFix] = [], dropped: String? = nil) {
        self.reply = reply
        self.kept = kept
        self.dropped = dropped
    }
}
