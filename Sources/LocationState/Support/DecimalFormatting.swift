/// Decimal output into a byte array, for writers that are not on a hot path (GPX, text, NMEA).
package enum DecimalFormatting {
    /// Appends `value` rounded to `decimals` (0...12) places (`-4.000`, `51.925907000`); non-finite as `null`.
    package static func append(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        ByteWriter.append(to: &out, capacity: 32) { $0.decimal(value, decimals: decimals) }
    }

    /// Appends a signed integer in decimal.
    package static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        ByteWriter.append(to: &out, capacity: 25) { $0.integer(value) }
    }

    /// Appends an integer in decimal, zero-padded to at least `width` (at most 24) digits.
    package static func appendPadded(_ value: Int, width: Int, to out: inout [UInt8]) {
        ByteWriter.append(to: &out, capacity: 25) { $0.integer(value, width: width) }
    }

    /// Appends the bytes of a string literal (a plain copy, no String machinery).
    @inline(__always)
    package static func appendLiteral(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
