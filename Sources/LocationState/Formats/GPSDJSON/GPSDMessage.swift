import Foundation
import LocationState

/// One report read from gpsd, reduced to what locationd uses (gpsd_json(5)).
package enum GPSDMessage: Sendable, Hashable {
    /// `VERSION`, the first report of every gpsd connection.
    case version(release: String)
    /// `DEVICES`: the paths of the devices gpsd currently has.
    case devices([String])
    /// `DEVICE`: one device appeared (`active`) or went away.
    case device(path: String, active: Bool)
    /// `TPV`, mapped into a fix marked `source: .gpsd`; its mode may be "no fix".
    case tpv(Location)
    /// `SKY`: satellites used in the solution and horizontal DOP, when reported.
    case sky(satellitesUsed: Int?, hdop: Double?)
    /// `ERROR`: gpsd's complaint about the request.
    case error(String)
    /// A report of another class (`WATCH`, `PPS`, ...), not used here.
    case other(className: String)
    /// A line that is not a gpsd JSON report; `excerpt` is its start, for the log.
    case unrecognized(excerpt: String)
}

extension GPSDMessage: CustomStringConvertible {
    /// The message as a log line names it: `a TPV report`, or the start of an unrecognized line in quotes.
    package var description: String {
        switch self {
        case .version: "a VERSION report"
        case .devices: "a DEVICES report"
        case .device: "a DEVICE report"
        case .tpv: "a TPV report"
        case .sky: "a SKY report"
        case .error(let text): "an ERROR report (\(text))"
        case .other(let className): "a \(className) report"
        case .unrecognized(let excerpt): "\"\(excerpt)\""
        }
    }

    /// The `class` of a gpsd JSON report (`{"class":"TPV",...}`), or nil when the
    /// line does not start like one. gpsd always writes `class` first.
    ///
    /// Works on the line's UTF-8 bytes, as libgps hands it over: no `String` is made
    /// for the line, and the class name is short enough to be stored inline. The bytes'
    /// type is concrete, not any collection: a generic function is not specialized for a
    /// caller in another target, and called generic this cost the daemon a fifth more
    /// instructions per fix (docs/performance.md).
    package static func className(ofJSON line: Slice<UnsafeRawBufferPointer>) -> String? {
        let prefix = #"{"class":""#.utf8
        guard line.starts(with: prefix) else { return nil }
        let rest = line.dropFirst(prefix.count)
        guard let end = rest.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: rest[..<end], as: UTF8.self)
    }

    /// The first characters of `text`, printable, for a log line.
    package static func excerpt(_ text: Substring, limit: Int = 60) -> String {
        let cleaned = text.prefix(limit).map { $0.isASCII && !$0.isNewline && ($0.asciiValue ?? 0) >= 0x20 ? $0 : "?" }
        return String(cleaned) + (text.count > limit ? "..." : "")
    }
}
