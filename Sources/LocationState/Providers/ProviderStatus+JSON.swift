import Foundation
import LocationState

extension ProviderStatus {
    /// The status as a line of a replay's JSON output (no newline), in the style of the
    /// `?STATUS;` answer with the time it changed first:
    /// `{"class":"STATUS","time":"2026-05-14T09:01:45.000Z","source":"replay","state":"stale","connected":true,"lastFix":"2026-05-14T09:01:40.000Z"}`,
    /// with `"reason"` last for a lost source, and no `"time"` when it is not known (nil).
    public func appendJSON(at time: Date?, to out: inout [UInt8]) {
        var reason: String?
        if case .lost(_, let text, _) = self { reason = text }
        let capacity = 200 + 6 * (reason?.utf8.count ?? 0)
        ByteWriter.append(to: &out, capacity: capacity) { out in
            out.literal(#"{"class":"STATUS","#)
            if let time {
                out.literal(#""time":""#)
                out.iso8601(time)
                out.literal(#"","#)
            }
            out.literal(#""source":"#)
            out.jsonString(source.rawValue)
            out.literal(#","state":"#)
            out.jsonString(name)
            out.literal(isConnected ? #","connected":true"# : #","connected":false"#)
            if let lastFix {
                out.literal(#","lastFix":""#)
                out.iso8601(lastFix)
                out.byte(UInt8(ascii: "\""))
            }
            if let reason {
                out.literal(#","reason":"#)
                out.jsonString(reason)
            }
            out.byte(UInt8(ascii: "}"))
        }
    }

    /// One line for people, in the style of a replayed fix's text line (no newline):
    /// `2026-05-14T09:01:45.000Z STATUS stale (last fix 2026-05-14T09:01:40.000Z)`, and
    /// `(no time) STATUS nofix` when the time is not known (nil).
    public func text(at time: Date?) -> String {
        var line = "\(time.map { UTCCalendar.iso8601($0) } ?? "(no time)") STATUS \(name)"
        if case .lost(_, let reason, _) = self { line += " \(reason)" }
        if !isLive, let lastFix { line += " (last fix \(UTCCalendar.iso8601(lastFix)))" }
        return line
    }
}
