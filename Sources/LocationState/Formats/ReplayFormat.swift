/// The kinds of recorded track `locationd replay` reads.
public enum ReplayFormat: String, Sendable, CaseIterable {
    /// NMEA 0183 sentences, one per line (receiver logs, gpsd's regression logs, TrackRecorder files).
    case nmea
    /// gpsd JSON reports, one object per line, as `gpspipe -w` writes them; TPV objects are the fixes.
    case json
    /// A GPX 1.1 (or 1.0) document; its track points are the fixes (``GPXDecoder``).
    case gpx

    /// Guesses the format from the first bytes of a file: the first line that is not blank,
    /// not a `#` comment and not part of gpsd's session header starts with `{` for JSON,
    /// `<` for GPX, anything else is NMEA.
    ///
    /// gpsd's session header is the `VERSION`, `DEVICES`, `DEVICE` and `WATCH` objects it
    /// sends each client first: `gpspipe -r` writes them before the NMEA it records, as
    /// `gpspipe -w` does before its reports, so they tell neither apart. A file of nothing
    /// else is JSON.
    public static func detect(_ head: some Collection<UInt8>) -> ReplayFormat {
        var sawHeader = false
        var skippingLine = false
        var index = head.startIndex
        while index != head.endIndex {
            let byte = head[index]
            defer { index = head.index(after: index) }
            if byte == 10 || byte == 13 {
                skippingLine = false
                continue
            }
            // White space, byte order marks (UTF-8's EF BB BF, UTF-16's FF FE and FE FF), and
            // the zero bytes of UTF-16 text (a GPX a Windows program wrote).
            if skippingLine || byte == 32 || byte == 9 || byte == 0xEF || byte == 0xBB || byte == 0xBF
                || byte == 0xFF || byte == 0xFE || byte == 0
            {
                continue
            }
            // The line's first other byte decides.
            switch byte {
            case UInt8(ascii: "#"):
                skippingLine = true
            case UInt8(ascii: "{") where isSessionHeader(head[index...]):
                sawHeader = true
                skippingLine = true
            case UInt8(ascii: "{"): return .json
            case UInt8(ascii: "<"): return .gpx
            default: return .nmea
            }
        }
        return sawHeader ? .json : .nmea
    }

    /// Whether a line starts as gpsd writes the objects of its session header.
    private static func isSessionHeader(_ line: some Collection<UInt8>) -> Bool {
        sessionHeaders.contains { line.starts(with: $0) }
    }

    private static let sessionHeaders: [[UInt8]] = ["VERSION", "DEVICES", "DEVICE", "WATCH"].map {
        Array("{\"class\":\"\($0)\"".utf8)
    }
}
