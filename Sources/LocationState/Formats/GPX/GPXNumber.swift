/// A decimal number read in place from the bytes of a GPX text or attribute value.
///
/// A plain decimal (`-12.345`, what loggers write: at most 19 digits, whose digits as a
/// whole number stay within 2^53, at most 22 of them after the point) is read directly:
/// the digits and the power of ten are both exact doubles, so the one division rounds
/// correctly, to the double `Double(String)` gives (Clinger's fast path). Anything else
/// (an exponent, more digits) goes through `Double(String)`. A `String` and an array for
/// every number cost more than the rest of reading a track point (docs/performance.md, GPX).
enum GPXNumber {
    /// The finite number `bytes` (without surrounding white space) spell; nil for any other text.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        if let value = plainDecimal(bytes) { return value }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// `[+-]digits[.digits]` within the fast path's bounds; nil for anything else.
    private static func plainDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !bytes.isEmpty, bytes.count <= 21 else { return nil }
        var index = 0
        let negative = bytes[0] == UInt8(ascii: "-")
        if negative || bytes[0] == UInt8(ascii: "+") { index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            let digit = UInt64(byte &- UInt8(ascii: "0"))
            if digit <= 9 {
                mantissa = mantissa &* 10 &+ digit
                digits += 1
                if seenPoint { fractionDigits += 1 }
            } else if byte == UInt8(ascii: "."), !seenPoint, digits > 0 {
                seenPoint = true
            } else {
                return nil
            }
            index += 1
        }
        // At most 19 digits cannot overflow; "5." is left to Double(String).
        guard digits > 0, digits <= 19, !seenPoint || fractionDigits > 0, mantissa <= 1 << 53,
            fractionDigits < powersOfTen.count
        else { return nil }
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    /// 10^0 to 10^22, each exact in a double.
    private static let powersOfTen: [Double] = [
        1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
        1e20, 1e21, 1e22,
    ]
}
