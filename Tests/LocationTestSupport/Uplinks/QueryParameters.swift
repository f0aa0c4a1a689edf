import Foundation

/// A query string or form body read into names and values as each server's library
/// reads it: names in the order they first appear, each with its values in order.
package struct QueryParameters: Sendable, Equatable {
    package struct Parameter: Sendable, Equatable {
        package let name: String
        package var values: [String]
    }

    /// A `%` not followed by two hex digits, which Netty refuses.
    package struct MalformedEscape: Error {}

    package private(set) var parameters: [Parameter] = []

    package var isEmpty: Bool { parameters.isEmpty }

    /// The first value of `name`, as Python's `dict(request.query)` and Rack keep it.
    package func first(_ name: String) -> String? { parameters.first { $0.name == name }?.values.first }

    /// The last value of `name`: the one Traccar's decoder ends with when a name repeats.
    package func last(_ name: String) -> String? { parameters.first { $0.name == name }?.values.last }

    private mutating func add(_ name: String, _ value: String) {
        if let index = parameters.firstIndex(where: { $0.name == name }) {
            parameters[index].values.append(value)
        } else {
            parameters.append(Parameter(name: name, values: [value]))
        }
    }

    /// Netty's `QueryStringDecoder` (netty/netty @ 01eb428b
    /// codec-http/src/main/java/io/netty/handler/codec/http/QueryStringDecoder.java,
    /// `decodeParams`, `addParam`, `decodeComponent`), as Traccar uses it for the URI
    /// (`hasPath`: the query after the first `?`) and for a form body (US-ASCII, no path;
    /// OsmAndProtocolDecoder.java:82-87): `&` and `;` separate, `#` ends, a leading `=`
    /// is skipped, a name without `=` has an empty value, `+` is a space, `%XX` runs are
    /// UTF-8 (bytes not escaped stand for themselves, one character each), and a `%`
    /// without two hex digits throws.
    package static func netty(_ text: [UInt8], hasPath: Bool) throws(MalformedEscape) -> QueryParameters {
        var from = 0
        if hasPath {
            guard let mark = text.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }),
                text[mark] == UInt8(ascii: "?")
            else { return QueryParameters() }
            from = mark + 1
        } else if text.first == UInt8(ascii: "?") {
            from = 1
        }
        var result = QueryParameters()
        var nameStart = from
        var valueStart = -1
        var index = from
        func addParameter(_ end: Int) throws(MalformedEscape) {
            guard nameStart < end else { return }
            let valueFrom = valueStart <= nameStart ? end + 1 : valueStart
            let name = try nettyComponent(text, nameStart, valueFrom - 1, latin1: hasPath)
            let value = try nettyComponent(text, valueFrom, end, latin1: hasPath)
            result.add(name, value)
        }
        scan: while index < text.count {
            switch text[index] {
            case UInt8(ascii: "="):
                if nameStart == index {
                    nameStart = index + 1
                } else if valueStart < nameStart {
                    valueStart = index + 1
                }
            case UInt8(ascii: "&"), UInt8(ascii: ";"):
                try addParameter(index)
                nameStart = index + 1
            case UInt8(ascii: "#"):
                break scan
            default:
                break
            }
            index += 1
        }
        try addParameter(index)
        return result
    }

    /// One name or value; a byte not escaped is the character of that code (`latin1`: the
    /// request line, which Netty reads a byte a character) or, beyond ASCII, U+FFFD (a body
    /// Traccar reads as US-ASCII).
    private static func nettyComponent(
        _ text: [UInt8], _ from: Int, _ end: Int, latin1: Bool
    ) throws(MalformedEscape) -> String {
        guard from < end else { return "" }
        var scalars = String.UnicodeScalarView()
        var index = from
        while index < end {
            let byte = text[index]
            guard byte == UInt8(ascii: "%") else {
                scalars.append(
                    byte == UInt8(ascii: "+") ? " " : byte < 0x80 || latin1 ? Unicode.Scalar(byte) : "\u{FFFD}")
                index += 1
                continue
            }
            var run: [UInt8] = []
            repeat {
                guard index + 3 <= end, let high = hexValue(text[index + 1]), let low = hexValue(text[index + 2]) else {
                    throw MalformedEscape()
                }
                run.append(high << 4 | low)
                index += 3
            } while index < end && text[index] == UInt8(ascii: "%")
            scalars.append(contentsOf: String(decoding: run, as: UTF8.self).unicodeScalars)
        }
        return String(scalars)
    }

    /// Python's `urllib.parse.parse_qsl(query, keep_blank_values=True)`, as aiohttp's
    /// `request.query` (yarl) reads a query for Home Assistant: only `&` separates, empty
    /// pieces are skipped, `+` is a space, `%XX` is UTF-8 (invalid bytes replaced) and a
    /// malformed `%` is kept as it is.
    package static func python(_ text: [UInt8]) -> QueryParameters {
        var result = QueryParameters()
        for piece in text.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let name = piece[..<(equals ?? piece.endIndex)]
            let value = equals.map { piece[piece.index(after: $0)...] } ?? []
            result.add(unquotePlus(Array(name)), unquotePlus(Array(value)))
        }
        return result
    }

    /// Rack's query parser (`Rack::QueryParser`, Rack 3), as Rails reads a query for
    /// Dawarich: `&` separates, `+` is a space, and a malformed `%` throws (Rails: 400).
    package static func rack(_ text: [UInt8]) throws(MalformedEscape) -> QueryParameters {
        var result = QueryParameters()
        for piece in text.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let name = Array(piece[..<(equals ?? piece.endIndex)])
            let value = equals.map { Array(piece[piece.index(after: $0)...]) } ?? []
            for part in [name, value] where !isWellEscaped(part) { throw MalformedEscape() }
            result.add(unquotePlus(name), unquotePlus(value))
        }
        return result
    }

    private static func isWellEscaped(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, hexValue(bytes[index + 1]) != nil, hexValue(bytes[index + 2]) != nil
                else { return false }
                index += 3
            } else {
                index += 1
            }
        }
        return true
    }

    /// `+` as a space, `%XX` as a byte where both digits are hex, else the `%` as it is; UTF-8.
    private static func unquotePlus(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
                continue
            }
            out.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
