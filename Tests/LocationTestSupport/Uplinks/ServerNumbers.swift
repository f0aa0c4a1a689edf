import Foundation

/// How each server's language reads a number from text. The stand-ins read fields with
/// these, so that a value the real server cannot read fails here too.
package enum ServerNumbers {
    /// Java's `Long.parseLong`: an optional sign and decimal digits, within 64 bits; no
    /// white space, no decimals (Traccar's `timestamp`).
    package static func javaLong(_ text: String) -> Int64? {
        var digits = Substring(text)
        if let sign = digits.first, sign == "+" || sign == "-" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text)
    }

    /// Java's `Double.parseDouble`: white space (up to U+0020) trimmed, an optional sign,
    /// `NaN`, `Infinity`, or decimal digits with an optional fraction and exponent and an
    /// optional `d`/`f` suffix. (Java's hexadecimal form is not read: no client sends it.)
    package static func javaDouble(_ text: String) -> Double? {
        var body = Substring(text).drop { $0.unicodeScalars.first!.value <= 0x20 }
        while let last = body.last, last.unicodeScalars.first!.value <= 0x20 { body = body.dropLast() }
        var sign = ""
        if let first = body.first, first == "+" || first == "-" {
            sign = first == "-" ? "-" : ""
            body = body.dropFirst()
        }
        if body == "NaN" { return .nan }
        if body == "Infinity" { return sign == "-" ? -.infinity : .infinity }
        if let last = body.last, "dDfF".contains(last) { body = body.dropLast() }
        guard isDecimal(body, exponent: true) else { return nil }
        return Double(sign + body)
    }

    /// Python's `float()` of a string: white space trimmed, `_` between digits, `nan`,
    /// `inf`, `infinity` in any case (Home Assistant's `vol.Coerce(float)`, `cv.latitude`).
    package static func pythonFloat(_ text: String) -> Double? {
        let (negative, body) = pythonSign(text)
        let value: Double?
        switch body.lowercased() {
        case "nan": value = .nan
        case "inf", "infinity": value = .infinity
        default:
            guard let plain = withoutUnderscores(body), isDecimal(Substring(plain), exponent: true) else { return nil }
            value = Double(plain)
        }
        return value.map { negative ? -$0 : $0 }
    }

    /// Python's `int()` of a string: white space trimmed, an optional sign, digits with
    /// `_` between them; no decimals (Home Assistant's `vol.Coerce(int)`).
    package static func pythonInt(_ text: String) -> Int? {
        let (negative, body) = pythonSign(text)
        guard let plain = withoutUnderscores(body), !plain.isEmpty, plain.allSatisfy(\.isASCIIDigit),
            let value = Int(plain)
        else { return nil }
        return negative ? -value : value
    }

    /// `text` without white space around it, and its sign taken off.
    private static func pythonSign(_ text: String) -> (negative: Bool, body: Substring) {
        let body = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        guard let first = body.first, first == "+" || first == "-" else { return (false, body) }
        return (first == "-", body.dropFirst())
    }

    /// C's `atof`: the longest leading part (after white space) that reads as a decimal
    /// number, or 0 (the OwnTracks Recorder's `number()` of a string).
    package static func cAtof(_ text: String) -> Double {
        let bytes = Array(text.utf8.drop { $0 == 0x20 || (0x09...0x0D).contains($0) })
        var index = 0
        func digits() -> Int {
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
            return index - start
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        var count = digits()
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            count += digits()
        }
        guard count > 0 else { return 0 }
        var end = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            if digits() > 0 { end = index }
        }
        var prefix = String(decoding: bytes[..<end], as: UTF8.self)
        if prefix.hasPrefix("+") { prefix.removeFirst() }
        if prefix.hasSuffix(".") { prefix.removeLast() }
        return Double(prefix) ?? 0
    }

    /// Whether `text` is digits with an optional fraction (at least one digit in all) and,
    /// with `exponent`, an optional `e` exponent.
    private static func isDecimal(_ text: Substring, exponent: Bool) -> Bool {
        var mantissa = text
        if exponent, let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            var power = text[text.index(after: e)...]
            if let sign = power.first, sign == "+" || sign == "-" { power = power.dropFirst() }
            guard !power.isEmpty, power.allSatisfy(\.isASCIIDigit) else { return false }
            mantissa = text[..<e]
        }
        let parts = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }) else { return false }
        return parts.contains { !$0.isEmpty }
    }

    /// `text` without the `_` that Python allows between two digits; nil for one elsewhere.
    private static func withoutUnderscores(_ text: Substring) -> String? {
        let characters = Array(text)
        for (index, character) in characters.enumerated() where character == "_" {
            guard index > 0, index < characters.count - 1, characters[index - 1].isASCIIDigit,
                characters[index + 1].isASCIIDigit
            else { return nil }
        }
        return String(characters.filter { $0 != "_" })
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isWholeNumber }
}
