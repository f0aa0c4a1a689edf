import Foundation
import LocationState

extension Motion: JSONLine {
    /// The motion as a line of locationd's protocol (no newline):
    /// `{"class":"MOTION","motion":"moving"}`, `{"class":"MOTION","motion":"unknown"}` or
    /// `{"class":"MOTION","motion":"stopped","since":"2026-11-23T07:00:00.000Z","lat":52.5,"lon":13.4}`,
    /// with `"name":"Oerlikon, Zurich, CH"` after them when the place is named.
    public func appendJSON(to out: inout [UInt8]) {
        ByteWriter.append(to: &out, capacity: 200 + ByteWriter.capacity(ofJSONString: placeName)) { out in
            out.literal(#"{"class":"MOTION","motion":""#)
            switch self {
            case .unknown: out.literal(#"unknown"}"#)
            case .moving: out.literal(#"moving"}"#)
            case .stopped(let since, let latitude, let longitude, let name):
                out.literal(#"stopped","since":""#)
                out.iso8601(since)
                out.literal(#"","lat":"#)
                out.decimal(latitude, decimals: TimelinePrecision.degrees)
                out.literal(#","lon":"#)
                out.decimal(longitude, decimals: TimelinePrecision.degrees)
                if let name {
                    out.literal(#","name":"#)
                    out.jsonString(name)
                }
                out.byte(UInt8(ascii: "}"))
            }
        }
    }
}

/// How many decimals the timeline's JSON gives each kind of number.
package enum TimelinePrecision {
    /// Centroids: 7 decimals, about 1 cm.
    package static let degrees = 7
    /// Distances and radii: 1 decimal (decimetres).
    package static let metres = 1
    /// Speeds: 2 decimals.
    package static let speed = 2
    /// Durations: 3 decimals (milliseconds, as the times).
    package static let seconds = 3
}
