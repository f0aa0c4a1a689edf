/// The elements the GPX reader acts on, told apart by the bytes of their local name.
///
/// libxml2 hands each element's local name as a NUL-terminated byte string; classifying
/// it in place, a byte at a time from the first that differs, costs a few comparisons
/// where a `String` for each element cost an allocation for the longer names and a
/// string comparison for each case (docs/performance.md, GPX).
enum GPXElement {
    case trackPoint, segment, waypoint, routePoint
    case elevation, time, fix, satellites, hdop, vdop, speed, course
    /// OsmAnd's `heading` in a track point's extensions: the course it recorded.
    case heading
    /// Any element not listed: read through, never acted on.
    case other

    /// The element whose local name is `name`, NUL-terminated.
    init(localName name: UnsafePointer<UInt8>) {
        self =
            switch name[0] {
            case UInt8(ascii: "t"):
                name.isName("trkpt")
                    ? .trackPoint : name.isName("time") ? .time : name.isName("trkseg") ? .segment : .other
            case UInt8(ascii: "e"): name.isName("ele") ? .elevation : .other
            case UInt8(ascii: "f"): name.isName("fix") ? .fix : .other
            case UInt8(ascii: "s"): name.isName("sat") ? .satellites : name.isName("speed") ? .speed : .other
            case UInt8(ascii: "h"): name.isName("hdop") ? .hdop : name.isName("heading") ? .heading : .other
            case UInt8(ascii: "v"): name.isName("vdop") ? .vdop : .other
            case UInt8(ascii: "c"): name.isName("course") ? .course : .other
            case UInt8(ascii: "w"): name.isName("wpt") ? .waypoint : .other
            case UInt8(ascii: "r"): name.isName("rtept") ? .routePoint : .other
            default: .other
            }
    }
}

extension UnsafePointer<UInt8> {
    /// Whether the NUL-terminated bytes here are `name`'s, and no more.
    func isName(_ name: StaticString) -> Bool {
        let expected = name.utf8Start
        for index in 0..<name.utf8CodeUnitCount where self[index] != expected[index] { return false }
        return self[name.utf8CodeUnitCount] == 0
    }
}
