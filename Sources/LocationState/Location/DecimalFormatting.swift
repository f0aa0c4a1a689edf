/// Fast fixed-point decimal output into a byte buffer, for JSON and NMEA writers.
enum DecimalFormatting {
    private static let scales: [Double] = (0...12).map { exponent in
        (0..<exponent).reduce(1.0) { product, _ in product * 10 }
    }

    /// Appends `value` rounded to `decimals` places (`-4.000`, `51.925907000`); non-finite values as `null`.
    static func append(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(contentsOf: "null".utf8)
            return
        }
        let scaled = (abs(value) * scales[decimals]).rounded()
        guard scaled < 9.0e15 else {
            out.append(contentsOf: "\(value)".utf8)
            return
        }
        let units = UInt64(scaled)
        if value < 0, units != 0 { out.append(UInt8(ascii: "-")) }
        let divisor = UInt64(scales[decimals])
        appendInteger(units / divisor, to: &out)
        if decimals > 0 {
            out.append(UInt8(ascii: "."))
            var fraction = units % divisor
            let start = out.count
            for _ in 0..<decimals {
                out.append(UInt8(48 + fraction % 10))
                fraction /= 10
            }
            out[start..<out.count].reverse()
        }
    }

    /// Appends a non-negative integer in decimal.
    static func appendInteger(_ value: UInt64, to out: inout [UInt8]) {
        let start = out.count
        var rest = value
        repeat {
            out.append(UInt8(48 + rest % 10))
            rest /= 10
        } while rest > 0
        out[start..<out.count].reverse()
    }

    /// Appends a signed integer in decimal.
    static func appendInteger(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendInteger(value.magnitude.asUInt64, to: &out)
    }
}

extension UInt {
    fileprivate var asUInt64: UInt64 { UInt64(self) }
}
