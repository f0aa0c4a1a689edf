/// locationd's one JSON string escaper, for every JSON it writes by hand.
extension ByteWriter {
    /// Writes `text` as a JSON string literal, quotes included: `"` and `\` escaped with
    /// a backslash, `\n`, `\r` and `\t` as such, other control characters as `\u00XX`,
    /// everything else as its UTF-8 bytes. At most 2 + 6 × `text.utf8.count` bytes.
    package mutating func jsonString(_ text: String) {
        byte(UInt8(ascii: "\""))
        for unit in text.utf8 {
            switch unit {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                byte(UInt8(ascii: "\\"))
                byte(unit)
            case UInt8(ascii: "\n"): literal("\\n")
            case UInt8(ascii: "\r"): literal("\\r")
            case UInt8(ascii: "\t"): literal("\\t")
            case 0..<0x20:
                literal("\\u00")
                byte(UInt8(ascii: unit < 0x10 ? "0" : "1"))
                byte(Self.lowerHexDigit(unit & 0xF))
            default:
                byte(unit)
            }
        }
        byte(UInt8(ascii: "\""))
    }

    /// Whether `text` holds a byte ``jsonString(_:)`` escapes: a control character, `"` or `\`.
    package static func needsEscape(_ text: String) -> Bool {
        text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
    }

    /// The most bytes ``jsonString(_:)`` writes for `text` (none for nil): what a caller
    /// adds to its capacity for each string of any length.
    package static func capacity(ofJSONString text: String?) -> Int {
        text.map { 2 + 6 * $0.utf8.count } ?? 0
    }

    private static func lowerHexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}

extension String {
    /// The string as a JSON string literal, quotes included (see ``ByteWriter/jsonString(_:)``):
    /// `"say \"hi\"\n"`.
    public var jsonQuoted: String {
        var quoted = ""
        quoted.appendJSONQuoted(self)
        return quoted
    }

    /// Appends `text` as a JSON string literal, quotes included (see ``ByteWriter/jsonString(_:)``).
    ///
    /// Text that needs no escape (a member name, most values) is appended as it is, with no
    /// buffer of its own: the daemon quotes every member name of every answer and event.
    package mutating func appendJSONQuoted(_ text: String) {
        guard ByteWriter.needsEscape(text) else {
            self += "\""
            self += text
            self += "\""
            return
        }
        var bytes: [UInt8] = []
        ByteWriter.append(to: &bytes, capacity: 2 + 6 * text.utf8.count) { $0.jsonString(text) }
        self += String(decoding: bytes, as: UTF8.self)
    }
}
