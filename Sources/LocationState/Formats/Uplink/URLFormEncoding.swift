import Foundation
import LocationState

/// Fields as a URL's query or a form body (`application/x-www-form-urlencoded`), as the
/// OsmAnd and GPSLogger requests carry them.
enum URLFormEncoding {
    /// `name=value` pairs joined by `&`, every byte outside RFC 3986's unreserved
    /// characters percent-encoded (a `+` left as such would read as a space in Traccar's
    /// and aiohttp's decoders, and so in Home Assistant's).
    static func encode(_ items: [URLQueryItem]) -> String {
        items.map { percentEncode($0.name) + "=" + percentEncode($0.value ?? "") }.joined(separator: "&")
    }

    /// `value` as a plain fixed-point decimal with `decimals` digits after the point: no
    /// exponent, which Java's `Double.parseDouble` and Python's `float` both read.
    static func decimal(_ value: Double, _ decimals: Int) -> String {
        var out: [UInt8] = []
        DecimalFormatting.append(value, decimals: decimals, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func percentEncode(_ text: String) -> String {
        var out: [UInt8] = []
        ByteWriter.append(to: &out, capacity: 1 + 3 * text.utf8.count) { writer in
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    writer.byte(byte)
                default:
                    writer.byte(UInt8(ascii: "%"))
                    writer.hexByte(byte)
                }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
