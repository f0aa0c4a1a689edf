/// Fast fixed-point decimal output into a byte buffer, for JSON, GPX and NMEA writers.
enum DecimalFormatting {
    /// 10^0 ... 10^12.
    private static let scales: (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double,
                                Double, Double) = (1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12)

    private static func scale(_ decimals: Int) -> Double {
        withUnsafeBytes(of: scales) { $0.load(fromByteOffset: decimals * 8, as: Double.self) }
    }

    /// Appends `value` rounded to `decimals` (0...12) places (`-4.000`, `51.925907000`); non-finite as `null`.
    static func append(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        guard value.isFinite else {
            appendLiteral("null", to: &out)
            return
        }
        let scaled = (abs(value) * scale(decimals)).rounded()
        guard scaled < 9.0e15 else {
            out.append(contentsOf: "\(value)".utf8)
            return
        }
        var units = UInt64(scaled)
        // Up to 16 integer digits, a point and 12 decimals, written backwards.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
            var position = 32
            if decimals > 0 {
                for _ in 0..<decimals {
                    position -= 1
                    buffer[position] = UInt8(truncatingIfNeeded: 48 &+ units % 10)
                    units /= 10
                }
                position -= 1
                buffer[position] = UInt8(ascii: ".")
            }
            repeat {
                position -= 1
                buffer[position] = UInt8(truncatingIfNeeded: 48 &+ units % 10)
                units /= 10
            } while units > 0
            if value < 0, scaled != 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[position..<32]))
        }
    }

    /// Appends a signed integer in decimal.
    static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        appendPadded(value, width: 1, to: &out)
    }

    /// Appends an integer in decimal, zero-padded to at least `width` digits.
    static func appendPadded(_ value: Int, width: Int, to out: inout [UInt8]) {
        var rest = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            var position = 24
            repeat {
                position -= 1
                buffer[position] = UInt8(truncatingIfNeeded: 48 &+ rest % 10)
                rest /= 10
            } while rest > 0 || 24 - position < width
            if value < 0 {
                position -= 1
                buffer[position] = UInt8(ascii: "-")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[position..<24]))
        }
    }

    /// Appends the bytes of a string literal (a plain copy, no String machinery).
    @inline(__always)
    static func appendLiteral(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
