/// A JSON document as a server's own parser sees it: numbers keep their text (so that an
/// integer and a decimal, or `1` and `true`, stay apart, which `JSONSerialization` does not
/// tell), objects keep their members in order.
///
/// Strict RFC 8259: what Traccar's JSON-P, Python's `json` and Ruby's `JSON` all accept.
/// A duplicate member reads as its last value, as in all three.
package indirect enum JSONValue: Sendable, Equatable {
    package struct Member: Sendable, Equatable {
        package let key: String
        package let value: JSONValue
    }

    case object([Member])
    case array([JSONValue])
    case string(String)
    /// The number's text as written, e.g. `1700000000` or `52.5e0`.
    case number(String)
    case bool(Bool)
    case null

    /// Parses `bytes` as one JSON value (white space around it allowed); nil when it is not JSON.
    package init?(parsing bytes: [UInt8]) {
        var parser = Parser(bytes: bytes)
        guard let value = parser.value(depth: 0) else { return nil }
        parser.skipSpace()
        guard parser.index == bytes.count else { return nil }
        self = value
    }

    /// The member `key` of an object (its last value when repeated); nil for a missing
    /// member or a value that is not an object.
    package subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last { $0.key == key }?.value
    }

    /// The members of an object, the elements of an array; nil for anything else.
    package var members: [Member]? {
        if case .object(let members) = self { return members }
        return nil
    }

    package var elements: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    package var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// A string, a number as written, or a boolean as `true`/`false`; nil for the rest.
    package var text: String? {
        switch self {
        case .string(let text), .number(let text): text
        case .bool(let flag): String(flag)
        default: nil
        }
    }

    /// An object's members that have a ``text``, by key: the raw fields a stand-in records.
    package var scalarFields: [String: String] {
        var fields: [String: String] = [:]
        for member in members ?? [] { fields[member.key] = member.value.text }
        return fields
    }

    /// A number's value as a `Double` (its text read in full).
    package var double: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// A number without fraction or exponent, as Python's `json` makes an `int` of it.
    package var isInteger: Bool {
        if case .number(let text) = self { return !text.contains { ".eE".contains($0) } }
        return false
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func value(depth: Int) -> JSONValue? {
            skipSpace()
            guard index < bytes.count, depth < 64 else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(depth: depth)
            case UInt8(ascii: "["): return array(depth: depth)
            case UInt8(ascii: "\""): return string().map(JSONValue.string)
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return number()
            }
        }

        private mutating func literal(_ word: String, _ value: JSONValue) -> JSONValue? {
            let word = Array(word.utf8)
            guard bytes.count - index >= word.count, Array(bytes[index..<index + word.count]) == word else {
                return nil
            }
            index += word.count
            return value
        }

        private mutating func object(depth: Int) -> JSONValue? {
            index += 1
            var members: [Member] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                guard let value = value(depth: depth + 1) else { return nil }
                members.append(Member(key: key, value: value))
                skipSpace()
                guard index < bytes.count else { return nil }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "}"): return .object(members)
                default: return nil
                }
            }
        }

        private mutating func array(depth: Int) -> JSONValue? {
            index += 1
            var elements: [JSONValue] = []
            skipSpace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth + 1) else { return nil }
                elements.append(element)
                skipSpace()
                guard index < bytes.count else { return nil }
                index += 1
                switch bytes[index - 1] {
                case UInt8(ascii: ","): continue
                case UInt8(ascii: "]"): return .array(elements)
                default: return nil
                }
            }
        }

        /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
        private mutating func number() -> JSONValue? {
            let start = index
            func digits() -> Int {
                let first = index
                while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
                return index - first
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
            let integerStart = index
            let integerDigits = digits()
            guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else { return nil }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits() > 0 else { return nil }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits() > 0 else { return nil }
            }
            return .number(String(decoding: bytes[start..<index], as: UTF8.self))
        }

        private mutating func string() -> String? {
            index += 1
            var scalars = String.UnicodeScalarView()
            var raw: [UInt8] = []
            func flush() {
                scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
                raw.removeAll()
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    flush()
                    return String(scalars)
                case UInt8(ascii: "\\"):
                    flush()
                    guard index < bytes.count else { return nil }
                    index += 1
                    switch bytes[index - 1] {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        scalars.append(scalar)
                    default: return nil
                    }
                case 0..<0x20: return nil
                default: raw.append(byte)
                }
            }
            return nil
        }

        /// The four hex digits after `\u` (and a low surrogate's `\uXXXX` after a high one).
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let high = hex4() else { return nil }
            if (0xD800..<0xDC00).contains(high) {
                guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else { return nil }
                index += 2
                guard let low = hex4(), (0xDC00..<0xE000).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(high)
        }

        private mutating func hex4() -> UInt32? {
            guard bytes.count - index >= 4,
                bytes[index..<index + 4].allSatisfy({ $0 < 0x80 && Character(Unicode.Scalar($0)).isHexDigit }),
                let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { return nil }
            index += 4
            return value
        }
    }
}
