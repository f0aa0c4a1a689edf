import Foundation
import LocationState

extension Stay: JSONLine {
    /// The stay as a line of locationd's protocol (no newline):
    /// `{"class":"STAY","start":ISO8601,"end":ISO8601,"lat":52.5,"lon":13.4,"radius":3.2,"fixes":300,"name":…}`,
    /// `name` and `place` when known, with `"open":true` last while the stay goes on.
    public func appendJSON(to out: inout [UInt8]) {
        append(to: &out, opening: #"{"class":"STAY","start":""#)
    }

    /// The members of a STAY line after `opening`, which names the class and opens `start`.
    package func append(to out: inout [UInt8], opening: StaticString) {
        // The members' most (decimals 32 bytes, integers 25, times 24), and the name's.
        let capacity = 300 + opening.utf8CodeUnitCount + 10 + ByteWriter.capacity(ofJSONString: name)
        ByteWriter.append(to: &out, capacity: capacity) { out in
            out.literal(opening)
            out.iso8601(start)
            out.literal(#"","end":""#)
            out.iso8601(end)
            out.literal(#"","lat":"#)
            out.decimal(latitude, decimals: TimelinePrecision.degrees)
            out.literal(#","lon":"#)
            out.decimal(longitude, decimals: TimelinePrecision.degrees)
            out.literal(#","radius":"#)
            out.decimal(radius, decimals: TimelinePrecision.metres)
            out.literal(#","fixes":"#)
            out.integer(fixes)
            if let name {
                out.literal(#","name":"#)
                out.jsonString(name)
            }
            if let place {
                out.literal(#","place":"#)
                out.integer(place)
            }
            if isOpen { out.literal(#","open":true"#) }
            out.byte(UInt8(ascii: "}"))
        }
    }
}
