import Foundation
import LocationFormats
import LocationState

/// What a server's answer means for the fixes a request carried (docs/uplink-servers.md,
/// "delivered" and "refused" per server).
public enum UplinkAnswer: Sendable, Equatable {
    /// The server has them: the cursor moves past them.
    case delivered
    /// Not now (the server is away, busy or failing): the same request again after a
    /// backoff, or after `after` when the server said when (`Retry-After`).
    case retry(reason: String, after: Duration?)
    /// Refused for what the request is (unknown device, credentials, a wrong URL): sending
    /// it again will not help until the server or the setting changes. The fixes wait;
    /// the target is tried again slowly, and the status shows `reason`.
    case refused(reason: String)

    /// The answer `status` with `body` from a server of `protocol`, at a Home Assistant
    /// webhook (`/api/webhook/`) or not.
    ///
    /// - 2xx: delivered, except an Overland answer without `{"result":"ok"}` (the one
    ///   answer on which the Overland app deletes its points), which is refused: the URL is
    ///   not an Overland endpoint; and, from Home Assistant's traccar or gpslogger webhook,
    ///   an answer without `Setting location for` (its answer to a location it took), which
    ///   is refused: Home Assistant answers a webhook id it does not know with 200 and an
    ///   empty body, and drops the location. (Its owntracks webhook answers a location it
    ///   dropped as one it took, so there a 2xx is all there is to go by.)
    /// - 408, 425, 429, 5xx: retry (429 and 503 after their `Retry-After`).
    /// - 3xx and other 4xx: refused. Redirects are not followed: a server that moved is a
    ///   setting to change, and following one to another host would hand it the credentials.
    public static func classify(
        _ protocol: UplinkProtocol, atHomeAssistantWebhook: Bool = false, status: Int, retryAfter: String?,
        body: [UInt8], now: Date = Date()
    ) -> UplinkAnswer {
        classify(
            `protocol`, atHomeAssistantWebhook: atHomeAssistantWebhook, status: status, retryAfter: retryAfter,
            body: body, words: words(status: status, body: body), now: now)
    }

    /// `reply` from `target`'s server: what it means, and the server's ``words(status:body:)``.
    static func read(_ reply: UplinkClient.Reply, from target: UplinkTarget) -> (answer: UplinkAnswer, words: String) {
        let words = words(status: reply.status, body: reply.body)
        let answer = classify(
            target.protocol, atHomeAssistantWebhook: target.keepsCurrentByArrival, status: reply.status,
            retryAfter: reply.retryAfter, body: reply.body, words: words, now: Date())
        return (answer, words)
    }

    private static func classify(
        _ protocol: UplinkProtocol, atHomeAssistantWebhook: Bool, status: Int, retryAfter: String?, body: [UInt8],
        words: String, now: Date
    ) -> UplinkAnswer {
        switch status {
        case 200..<300:
            switch `protocol` {
            case .overland where !OverlandBatch.isAcknowledgement(body):
                return .refused(reason: "\(words) without {\"result\":\"ok\"}: is the URL an Overland endpoint?")
            case .gpslogger where !homeAssistantTookLocation(body),
                .osmand where atHomeAssistantWebhook && !homeAssistantTookLocation(body):
                let webhook = `protocol` == .osmand ? "traccar" : "gpslogger"
                return .refused(
                    reason: "\(words) without \"Setting location for\": is the URL a registered \(webhook) webhook?")
            default:
                return .delivered
            }
        case 408, 425, 429, 500..<600:
            return .retry(reason: words, after: retryAfter.flatMap { Self.delay(retryAfter: $0, now: now) })
        default:
            return .refused(reason: words)
        }
    }

    /// Whether `body` is the answer of Home Assistant's gpslogger webhook (and of its traccar
    /// webhook, in the same words) to a location it took: `Setting location for DEVICE`
    /// (gpslogger/__init__.py, traccar/__init__.py:88). An unregistered webhook answers 200
    /// with an empty body (webhook/__init__.py:137-148), and the location is dropped.
    static func homeAssistantTookLocation(_ body: [UInt8]) -> Bool {
        body.starts(with: "Setting location for ".utf8)
    }

    /// A `Retry-After` value as a delay: seconds, or an HTTP date in its preferred form
    /// (IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`; RFC 9110, 5.6.7 and 10.2.3); nil for
    /// anything else. At most an hour: a server's mistake must not park a target for days.
    public static func delay(retryAfter value: String, now: Date = Date()) -> Duration? {
        let text = value.trimmingCharacters(in: .whitespaces)
        let seconds: Double
        if let number = Int(text), number >= 0 {
            seconds = Double(number)
        } else if let date = imfFixdate(text) {
            seconds = max(0, date.timeIntervalSince(now))
        } else {
            return nil
        }
        return .seconds(min(seconds, 3600))
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// `Sun, 06 Nov 1994 08:49:37 GMT` as a date.
    private static func imfFixdate(_ text: String) -> Date? {
        let words = text.split(separator: " ")
        guard words.count == 6, words[0].hasSuffix(","), words[5] == "GMT", words[1].count == 2,
            let day = Int(words[1]), let month = months.firstIndex(of: String(words[2])), words[3].count == 4,
            let year = Int(words[3])
        else { return nil }
        return UTCCalendar.parseISO8601(String(format: "%04d-%02d-%02dT%@Z", year, month + 1, day, String(words[4])))
    }

    /// The status and the start of the body's first line, as the status and the log
    /// show the server's words: printable, at most 160 characters.
    public static func words(status: Int, body: [UInt8]) -> String {
        let line = body.prefix(1024).split(separator: UInt8(ascii: "\n")).first ?? []
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return "HTTP \(status)" }
        return "HTTP \(status): \(text.prefix(160).escapedForTerminal)"
    }
}
