/// The comma-separated fields of one sentence, read in place from the line's bytes.
///
/// Field 0 is the tag (`GPGGA`). A field past the end reads as empty. Numbers are
/// decoded straight from ASCII, without making a String per field.
package struct NMEAFields {
    /// The sentence body: the bytes after `$` and before `*`.
    package let bytes: UnsafeBufferPointer<UInt8>
    /// Start and end offsets of each field, interleaved.
    package let bounds: UnsafeMutableBufferPointer<Int32>
    /// How many fields, tag included.
    package let count: Int

    /// The most fields a sentence may have; further fields are ignored.
    package static let capacity = 48

    /// The fields of `bytes` whose offsets ``NMEAParser`` found: `count` start and end
    /// pairs in `bounds` (capacity `2 * NMEAFields.capacity`).
    package init(bytes: UnsafeBufferPointer<UInt8>, bounds: UnsafeMutableBufferPointer<Int32>, count: Int) {
        self.bytes = bytes
        self.bounds = bounds
        self.count = count
    }

    /// The byte range of field `index`, empty when past the end.
    @inline(__always)
    package func range(_ index: Int) -> Range<Int> {
        guard index < count else { return 0..<0 }
        return Int(bounds[2 * index])..<Int(bounds[2 * index + 1])
    }

    package func isEmpty(_ index: Int) -> Bool { range(index).isEmpty }

    /// The first byte of field `index`, nil when the field is empty.
    @inline(__always)
    package func character(_ index: Int) -> UInt8? {
        let range = range(index)
        return range.isEmpty ? nil : bytes[range.lowerBound]
    }

    /// A non-negative decimal integer, nil when empty or not all digits.
    @inline(__always)
    package func integer(_ index: Int) -> Int? {
        let range = range(index)
        guard !range.isEmpty, range.count <= 9 else { return nil }
        var value = 0
        for position in range {
            let digit = Int(bytes[position]) &- 48
            guard digit >= 0, digit <= 9 else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// A decimal number (`-12.345`, `.5`, `7.`), nil when empty or malformed.
    package func number(_ index: Int) -> Double? { NMEAFields.number(bytes, range(index)) }

    /// A time of day `hhmmss[.sss]` in milliseconds since midnight (fractions below 1 ms truncated).
    package func timeOfDay(_ index: Int) -> Int? {
        let range = range(index)
        guard range.count >= 6 else { return nil }
        let start = range.lowerBound
        let hours = twoDigits(at: start)
        let minutes = twoDigits(at: start + 2)
        let seconds = twoDigits(at: start + 4)
        guard hours >= 0, minutes >= 0, seconds >= 0, hours < 24, minutes < 60, seconds <= 60 else { return nil }
        var milliseconds = 0
        var position = start + 6
        if position < range.upperBound {
            guard bytes[position] == UInt8(ascii: ".") else { return nil }
            position += 1
            var scale = 100
            while position < range.upperBound {
                let digit = Int(bytes[position]) &- 48
                guard digit >= 0, digit <= 9 else { return nil }
                milliseconds += digit * scale
                scale /= 10
                position += 1
            }
        }
        return ((hours * 60 + minutes) * 60 + seconds) * 1000 + milliseconds
    }

    /// The two-digit number at `position`, or -1 when either byte is not a digit.
    @inline(__always)
    private func twoDigits(at position: Int) -> Int {
        let tens = Int(bytes[position]) &- 48
        let ones = Int(bytes[position + 1]) &- 48
        guard tens >= 0, tens <= 9, ones >= 0, ones <= 9 else { return -1 }
        return tens * 10 + ones
    }

    /// A date `ddmmyy` with the two-digit year rule of ``NMEADate/year(twoDigit:)``.
    package func date(_ index: Int) -> NMEADate? {
        let range = range(index)
        guard range.count == 6, let packed = integer(index) else { return nil }
        return NMEADate(year: NMEADate.year(twoDigit: packed % 100), month: packed / 100 % 100, day: packed / 10_000)
    }

    /// A latitude `ddmm.mmm` at `index` with its hemisphere (`N`/`S`) at `index + 1`, in signed degrees.
    @inline(__always)
    package func latitude(_ index: Int) -> Double? {
        guard let degrees = angle(index, maximum: 90) else { return nil }
        switch character(index + 1) {
        case UInt8(ascii: "N"): return degrees
        case UInt8(ascii: "S"): return -degrees
        default: return nil
        }
    }

    /// A longitude `dddmm.mmm` at `index` with its hemisphere (`E`/`W`) at `index + 1`, in signed degrees.
    @inline(__always)
    package func longitude(_ index: Int) -> Double? {
        guard let degrees = angle(index, maximum: 180) else { return nil }
        switch character(index + 1) {
        case UInt8(ascii: "E"): return degrees
        case UInt8(ascii: "W"): return -degrees
        default: return nil
        }
    }

    @inline(__always)
    private func angle(_ index: Int, maximum: Double) -> Double? {
        guard let value = number(index), value >= 0 else { return nil }
        let degrees = (value / 100).rounded(.down)
        let minutes = value - degrees * 100
        guard minutes < 60 else { return nil }
        let result = degrees + minutes / 60
        return result <= maximum ? result : nil
    }

    /// Parses a plain decimal number from `bytes[range]`; exact to the nearest double for up to 18 digits.
    package static func number(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
        guard !range.isEmpty else { return nil }
        var position = range.lowerBound
        var negative = false
        if bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
            negative = bytes[position] == UInt8(ascii: "-")
            position += 1
        }
        let length = range.upperBound - position
        if length <= 18 {
            guard let (mantissa, fractionDigits) = shortNumber(bytes, position..<range.upperBound) else { return nil }
            // The mantissa is below 10^18, so the signed conversion (one instruction) is exact.
            let value = Double(Int64(bitPattern: mantissa)) / powerOfTen(fractionDigits)
            return negative ? -value : value
        }
        var mantissa: UInt64 = 0
        var significant = 0
        var fractionDigits = 0
        var seenDigit = false
        var seenPoint = false
        while position < range.upperBound {
            let byte = bytes[position]
            if byte == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
            } else {
                let digit = UInt64(byte &- 48)
                guard digit <= 9 else { return nil }
                seenDigit = true
                if significant < 18 && fractionDigits < 18 {
                    if mantissa != 0 || digit != 0 { significant += 1 }
                    mantissa = mantissa * 10 + digit
                    if seenPoint { fractionDigits += 1 }
                } else if !seenPoint {
                    return nil
                }
            }
            position += 1
        }
        guard seenDigit else { return nil }
        let value = Double(mantissa) / powerOfTen(fractionDigits)
        return negative ? -value : value
    }

    /// The digits of an unsigned number of at most 18 characters, without the point, and
    /// how many follow the point; nil when there is no digit, a second point or another byte.
    ///
    /// The same result as the general loop of ``number(_:_:)``: with at most 18 digits none
    /// is dropped and the mantissa cannot overflow, so this loop need not count them.
    @inline(__always)
    private static func shortNumber(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>
    ) -> (mantissa: UInt64, fractionDigits: Int)? {
        guard !range.isEmpty else { return nil }
        var byte = bytes.baseAddress! + range.lowerBound
        let end = bytes.baseAddress! + range.upperBound
        var mantissa: UInt64 = 0
        repeat {
            let digit = UInt64(byte.pointee &- 48)
            if digit > 9 { break }
            mantissa = mantissa &* 10 &+ digit
            byte += 1
        } while byte < end
        guard byte < end else { return (mantissa, 0) }
        guard byte.pointee == UInt8(ascii: "."), range.count > 1 else { return nil }
        byte += 1
        let fractionStart = byte
        while byte < end {
            let digit = UInt64(byte.pointee &- 48)
            guard digit <= 9 else { return nil }
            mantissa = mantissa &* 10 &+ digit
            byte += 1
        }
        return (mantissa, end - fractionStart)
    }

    /// 10^`exponent` for 0...18, each exact in a Double (a constant table, no lazy global).
    @inline(__always)
    private static func powerOfTen(_ exponent: Int) -> Double {
        switch exponent {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        case 18: 1e18
        default: preconditionFailure("power of ten out of range")
        }
    }
}
