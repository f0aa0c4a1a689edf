/// The kinds of recorded track `locationd replay` reads.
public enum ReplayFormat: String, Sendable, CaseIterable {
    /// NMEA 0183 sentences, one per line (receiver logs, gpsd's regression logs, TrackRecorder files).
    case nmea
    /// gpsd JSON reports, one object per line, as `gpspipe -w` writes them; TPV objects are the fixes.
    case json
    /// A GPX 1.1 (or 1.0) document; its track points are the fixes (``GPXDecoder``).
    case gpx

    /// Guesses the format from the first bytes of a file: the first line that is not blank
    /// and not a `#` comment starts with `{` for JSON, `<` for GPX, anything else is NMEA.
    public static func detect(_ head: some Collection<UInt8>) -> ReplayFormat {
        var atLineStart = true
        var inComment = false
        for byte in head {
            if byte == 10 || byte == 13 {
                atLineStart = true
                inComment = false
                continue
            }
            if inComment { continue }
            if atLineStart, byte == UInt8(ascii: "#") {
                inComment = true
                continue
            }
            // White space, byte order marks (UTF-8's EF BB BF, UTF-16's FF FE and FE FF), and
            // the zero bytes of UTF-16 text (a GPX a Windows program wrote).
            if byte == 32 || byte == 9 || byte == 0xEF || byte == 0xBB || byte == 0xBF || byte == 0xFF || byte == 0xFE
                || byte == 0
            {
                continue
            }
            switch byte {
            case UInt8(ascii: "{"): return .json
            case UInt8(ascii: "<"): return .gpx
            default: return .nmea
            }
        }
        return .nmea
    }
}
