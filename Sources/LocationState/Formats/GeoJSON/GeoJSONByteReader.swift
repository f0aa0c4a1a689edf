import Foundation
import LocationState

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The JSON tokens of a file, read through a 64 KiB buffer: memory stays bounded
/// whatever the file's size, and only what the caller keeps is kept.
package struct GeoJSONByteReader: ~Copyable {
    /// Longest string kept (names, identifiers, types); longer ones are refused.
    package static let maximumStringLength = 4096
    /// Deepest nesting of arrays and objects skipped over.
    package static let maximumDepth = 512

    private let descriptor: Int32
    private var buffer: [UInt8]
    private var position = 0
    private var end = 0
    /// Bytes consumed before the buffer's first byte.
    private var offset = 0
    private var atEnd = false

    /// Reads from `descriptor` (not closed here).
    package init(descriptor: Int32) {
        self.descriptor = descriptor
        buffer = [UInt8](repeating: 0, count: 1 << 16)
    }

    /// Reads from bytes in memory.
    package init(bytes: [UInt8]) {
        descriptor = -1
        buffer = bytes
        end = bytes.count
        atEnd = true
    }

    /// The offset of the next byte in the file.
    package var byteOffset: Int { offset + position }

    /// The next byte without consuming it, or nil at the end.
    package mutating func peek() throws(RegionFileProblem) -> UInt8? {
        if position == end {
            try refill()
            if position == end { return nil }
        }
        return buffer[position]
    }

    /// The next byte that is not JSON white space, not consumed.
    package mutating func peekToken() throws(RegionFileProblem) -> UInt8? {
        while let byte = try peek() {
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return byte }
            position += 1
        }
        return nil
    }

    /// Skips a UTF-8 byte order mark at the start of the file, which editors on Windows
    /// write and the configuration file accepts too.
    package mutating func skipByteOrderMark() throws(RegionFileProblem) {
        guard byteOffset == 0, try peek() == 0xEF, end - position >= 3, buffer[position + 1] == 0xBB,
            buffer[position + 2] == 0xBF
        else { return }
        position += 3
    }

    /// Consumes the next token byte, which must be `expected`.
    package mutating func expect(_ expected: UInt8) throws(RegionFileProblem) {
        let byte = try peekToken()
        guard byte == expected else { throw unexpected(byte, wanted: "'\(Character(UnicodeScalar(expected)))'") }
        position += 1
    }

    /// Consumes the next token byte if it is `byte`.
    package mutating func consume(_ byte: UInt8) throws(RegionFileProblem) -> Bool {
        guard try peekToken() == byte else { return false }
        position += 1
        return true
    }

    /// A problem naming what was found at the current offset.
    package func unexpected(_ byte: UInt8?, wanted: String) -> RegionFileProblem {
        let found: String
        if let byte {
            found = byte >= 0x20 && byte < 0x7F ? "'\(Character(UnicodeScalar(byte)))'" : "byte \(byte)"
        } else {
            found = "the end of the file"
        }
        return RegionFileProblem("not GeoJSON: expected \(wanted) at byte \(byteOffset), found \(found)")
    }

    /// Reads a string (escapes decoded); refuses one longer than ``maximumStringLength`` bytes.
    package mutating func string() throws(RegionFileProblem) -> String {
        try expect(UInt8(ascii: "\""))
        var bytes: [UInt8] = []
        while true {
            guard let byte = try next() else { throw unexpected(nil, wanted: "'\"'") }
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: bytes, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try escape(into: &bytes)
            case 0..<0x20:
                throw RegionFileProblem("not GeoJSON: a control character inside a string at byte \(byteOffset - 1)")
            default:
                bytes.append(byte)
            }
            guard bytes.count <= Self.maximumStringLength else {
                throw RegionFileProblem(
                    "a string longer than \(Self.maximumStringLength) bytes at byte \(byteOffset) (names and ids must be short)"
                )
            }
        }
    }

    /// Reads a number.
    package mutating func number() throws(RegionFileProblem) -> Double {
        _ = try peekToken()
        var text: [CChar] = []
        while let byte = try peek(),
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
                || byte == UInt8(ascii: "E")
        {
            text.append(CChar(bitPattern: byte))
            position += 1
            guard text.count <= 64 else {
                throw RegionFileProblem("not GeoJSON: a number too long at byte \(byteOffset)")
            }
        }
        guard !text.isEmpty, text[0] != CChar(UInt8(ascii: "+")) else {
            throw unexpected(try peek(), wanted: "a number")
        }
        text.append(0)
        var parsedEnd: UnsafeMutablePointer<CChar>?
        let (value, used) = text.withUnsafeMutableBufferPointer { buffer in
            let value = strtod(buffer.baseAddress!, &parsedEnd)
            return (value, parsedEnd.map { $0 - buffer.baseAddress! } ?? 0)
        }
        guard used == text.count - 1, value.isFinite else {
            throw RegionFileProblem(
                "not GeoJSON: '\(String(decoding: text.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self))' is not a number at byte \(byteOffset)"
            )
        }
        return value
    }

    /// Skips one value of any kind, however deeply nested (up to ``maximumDepth``), keeping nothing.
    package mutating func skipValue() throws(RegionFileProblem) {
        var depth = 0
        repeat {
            guard let byte = try peekToken() else { throw unexpected(nil, wanted: "a value") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                position += 1
                depth += 1
                guard depth <= Self.maximumDepth else {
                    throw RegionFileProblem("nested deeper than \(Self.maximumDepth) levels at byte \(byteOffset)")
                }
                continue
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { throw unexpected(byte, wanted: "a value") }
                position += 1
                depth -= 1
            case UInt8(ascii: ","), UInt8(ascii: ":"):
                guard depth > 0 else { throw unexpected(byte, wanted: "a value") }
                position += 1
                continue
            case UInt8(ascii: "\""):
                try skipString()
            case UInt8(ascii: "t"): try literal("true")
            case UInt8(ascii: "f"): try literal("false")
            case UInt8(ascii: "n"): try literal("null")
            default: _ = try number()
            }
        } while depth > 0
    }

    /// Consumes `null` if it comes next.
    package mutating func consumeNull() throws(RegionFileProblem) -> Bool {
        guard try peekToken() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    private mutating func literal(_ word: StaticString) throws(RegionFileProblem) {
        for expected in UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount) {
            let byte = try next()
            guard byte == expected else { throw unexpected(byte, wanted: "'\(word)'") }
        }
    }

    private mutating func skipString() throws(RegionFileProblem) {
        position += 1
        while true {
            guard let byte = try next() else { throw unexpected(nil, wanted: "'\"'") }
            if byte == UInt8(ascii: "\"") { return }
            if byte == UInt8(ascii: "\\") { _ = try next() }
        }
    }

    private mutating func escape(into bytes: inout [UInt8]) throws(RegionFileProblem) {
        guard let byte = try next() else { throw unexpected(nil, wanted: "an escape") }
        switch byte {
        case UInt8(ascii: "n"): bytes.append(0x0A)
        case UInt8(ascii: "t"): bytes.append(0x09)
        case UInt8(ascii: "r"): bytes.append(0x0D)
        case UInt8(ascii: "b"): bytes.append(0x08)
        case UInt8(ascii: "f"): bytes.append(0x0C)
        case UInt8(ascii: "u"):
            var code: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = try next(), let value = Self.hexValue(digit) else {
                    throw RegionFileProblem("not GeoJSON: a bad \\u escape at byte \(byteOffset)")
                }
                code = code << 4 | value
            }
            // A lone surrogate half becomes U+FFFD; pairs are rare in names and ids.
            let scalar = UnicodeScalar(code) ?? "\u{FFFD}"
            bytes.append(contentsOf: Array(String(Character(scalar)).utf8))
        default: bytes.append(byte)
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private mutating func next() throws(RegionFileProblem) -> UInt8? {
        guard let byte = try peek() else { return nil }
        position += 1
        return byte
    }

    private mutating func refill() throws(RegionFileProblem) {
        guard !atEnd else { return }
        offset += end
        position = 0
        end = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw RegionFileProblem("cannot read the file: \(SystemCall.message())")
            }
            end = count
            if count == 0 { atEnd = true }
            return
        }
    }
}
