import Foundation
import LocationState

extension RegionEvent: JSONLine {
    /// The event as a line of locationd's protocol (no newline):
    /// `{"class":"REGION","event":"enter","region":"home","name":"Home","time":"2026-11-23T07:00:00.000Z","lat":52.5,"lon":13.4}`,
    /// with `"simulated":true` last for a simulated fix.
    ///
    /// `lat` and `lon` are where the fix that made the transition was (OwnTracks'
    /// transition carries them too).
    public func appendJSON(to out: inout [UInt8]) {
        let capacity = 160 + 6 * (region.rawValue.utf8.count + name.utf8.count)
        ByteWriter.append(to: &out, capacity: capacity) { out in
            out.literal(#"{"class":"REGION","event":""#)
            switch kind {
            case .enter: out.literal("enter")
            case .leave: out.literal("leave")
            }
            out.literal(#"","region":"#)
            out.jsonString(region.rawValue)
            out.literal(#","name":"#)
            out.jsonString(name)
            out.literal(#","time":""#)
            out.iso8601(time)
            out.literal(#"","lat":"#)
            out.decimal(lat, decimals: 9)
            out.literal(#","lon":"#)
            out.decimal(lon, decimals: 9)
            if simulated { out.literal(#","simulated":true"#) }
            out.byte(UInt8(ascii: "}"))
        }
    }

    /// One line for people, in the style of a replayed fix's text line (no newline):
    /// `2026-11-23T07:00:00.000Z REGION enter home "Home" 52.500000 13.400000 simulated`.
    public var text: String {
        "\(UTCCalendar.iso8601(time)) REGION \(kind.rawValue) \(region.rawValue.escapedForTerminal) \"\(name.escapedForTerminal)\" "
            + String(format: "%.6f %.6f", lat, lon) + (simulated ? " simulated" : "")
    }
}
