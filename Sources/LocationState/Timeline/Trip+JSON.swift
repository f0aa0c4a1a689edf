import Foundation
import LocationState

extension Trip: JSONLine {
    /// The trip as a line of locationd's protocol (no newline):
    /// `{"class":"TRIP","start":ISO8601,"end":ISO8601,"distance":1234.5,"duration":300.000,"avgSpeed":4.12,
    /// "maxSpeed":9.80,"fixes":300,"mode":"slow_mobility","from":ISO8601,"to":ISO8601}`; `mode`
    /// (``TransportMode``) left out for a trip of no duration, `from` and `to` (the stays'
    /// starts) when nil, then `from_name` and `to_name` (the stays' names) when known,
    /// `"open":true` last while the trip goes on.
    public func appendJSON(to out: inout [UInt8]) {
        // The members' most (decimals 32 bytes, integers 25, times 24), and the names'.
        let capacity =
            480 + ByteWriter.capacity(ofJSONString: fromName) + ByteWriter.capacity(ofJSONString: toName)
        ByteWriter.append(to: &out, capacity: capacity) { out in
            out.literal(#"{"class":"TRIP","start":""#)
            out.iso8601(start)
            out.literal(#"","end":""#)
            out.iso8601(end)
            out.literal(#"","distance":"#)
            out.decimal(distance, decimals: TimelinePrecision.metres)
            out.literal(#","duration":"#)
            out.decimal(duration, decimals: TimelinePrecision.seconds)
            out.literal(#","avgSpeed":"#)
            out.decimal(averageSpeed, decimals: TimelinePrecision.speed)
            out.literal(#","maxSpeed":"#)
            out.decimal(maxSpeed, decimals: TimelinePrecision.speed)
            out.literal(#","fixes":"#)
            out.integer(fixes)
            switch mode {
            case .slow?: out.literal(#","mode":"slow_mobility""#)
            case .motorized?: out.literal(#","mode":"motorized_mobility""#)
            case .fast?: out.literal(#","mode":"fast_mobility""#)
            case nil: break
            }
            if let from {
                out.literal(#","from":""#)
                out.iso8601(from)
                out.byte(UInt8(ascii: "\""))
            }
            if let to {
                out.literal(#","to":""#)
                out.iso8601(to)
                out.byte(UInt8(ascii: "\""))
            }
            if let fromName {
                out.literal(#","from_name":"#)
                out.jsonString(fromName)
            }
            if let toName {
                out.literal(#","to_name":"#)
                out.jsonString(toName)
            }
            if isOpen { out.literal(#","open":true"#) }
            out.byte(UInt8(ascii: "}"))
        }
    }
}
