import Foundation

/// Writes ASCII output through a raw pointer into a buffer the caller sized, without bounds checks.
///
/// - Important: the caller guarantees capacity: every method writes at most the bytes
///   its documentation states (``decimal(_:decimals:)`` at most 32).
package struct ByteWriter {
    /// Where the next byte goes.
    package private(set) var cursor: UnsafeMutablePointer<UInt8>
    private let start: UnsafeMutablePointer<UInt8>

    package init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        cursor = start
    }

    /// Bytes written so far.
    package var count: Int { cursor - start }

    /// The bytes written so far.
    package var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    /// Writes one byte.
    @inline(__always)
    package mutating func byte(_ value: UInt8) {
        cursor.pointee = value
        cursor += 1
    }

    /// Writes a string literal's bytes.
    @inline(__always)
    package mutating func literal(_ text: StaticString) {
        cursor.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        cursor += text.utf8CodeUnitCount
    }

    /// Writes a byte as two upper-case hex digits.
    @inline(__always)
    package mutating func hexByte(_ value: UInt8) {
        byte(ByteWriter.hexDigit(value >> 4))
        byte(ByteWriter.hexDigit(value & 0xF))
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "A") &+ nibble &- 10
    }

    /// Writes `bytes`.
    package mutating func bytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        cursor.update(from: base, count: bytes.count)
        cursor += bytes.count
    }

    /// Writes an integer in decimal, zero-padded to `width` (at most 24) digits; at most 25 bytes.
    @inline(__always)
    package mutating func integer(_ value: Int, width: Int = 1) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        let magnitude = UInt64(value.magnitude)
        digits(magnitude, count: max(ByteWriter.digitCount(magnitude), width))
    }

    /// Writes the lowest `count` (0...24) decimal digits of `value`, zero-padded: `count` bytes.
    @inline(__always)
    package mutating func digits(_ value: UInt64, count: Int) {
        let table = ByteWriter.digitPairs
        var rest = value
        var position = cursor + count
        cursor = position
        var remaining = count
        while remaining >= 2 {
            let pair = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            position -= 2
            position[0] = table[pair]
            position[1] = table[pair &+ 1]
            remaining -= 2
        }
        if remaining == 1 {
            position[-1] = UInt8(truncatingIfNeeded: 48 &+ rest % 10)
        }
    }

    /// Writes `value` (below 10,000) in decimal without leading zeros, and without a
    /// branch on its length: 1 to 4 bytes, but touches 4.
    @inline(__always)
    private mutating func smallInteger(_ value: UInt64) {
        let table = ByteWriter.digitPairs
        let high = Int(truncatingIfNeeded: value / 100) &* 2
        let low = Int(truncatingIfNeeded: value % 100) &* 2
        var count = 1
        count &+= value >= 10 ? 1 : 0
        count &+= value >= 100 ? 1 : 0
        count &+= value >= 1000 ? 1 : 0
        // The four digits, first in memory the most significant; shifted so that the
        // leading zeros fall out.
        var word = UInt32(table[high]) | UInt32(table[high &+ 1]) << 8
        word |= UInt32(table[low]) << 16 | UInt32(table[low &+ 1]) << 24
        word >>= UInt32(truncatingIfNeeded: 8 &* (4 &- count))
        UnsafeMutableRawPointer(cursor).storeBytes(of: word.littleEndian, as: UInt32.self)
        cursor += count
    }

    /// "00" to "99": two digits per division.
    @inline(__always)
    private static var digitPairs: UnsafePointer<UInt8> {
        let pairs: StaticString = """
            00010203040506070809101112131415161718192021222324252627282930313233343536373839\
            4041424344454647484950515253545556575859606162636465666768697071727374757677787980\
            81828384858687888990919293949596979899
            """
        return pairs.utf8Start
    }

    /// How many decimal digits `value` has (1 for 0).
    @inline(__always)
    package static func digitCount(_ value: UInt64) -> Int {
        var count = 1
        var rest = value
        while rest >= 100 {
            rest /= 100
            count += 2
        }
        return rest >= 10 ? count + 1 : count
    }

    /// 10^`exponent` for `exponent` in 0...19; a constant when `exponent` is.
    @inline(__always)
    private static func powerOfTen(_ exponent: Int) -> UInt64 {
        var power: UInt64 = 1
        for _ in 0..<exponent { power &*= 10 }
        return power
    }

    /// Writes `value` rounded to `decimals` (0...12) places, `null` when not finite; at most 32 bytes.
    ///
    /// Rounds half away from zero the `Double` product of `value` and 10^decimals; a value
    /// whose product is 9e15 or more is written as Swift's shortest representation.
    package mutating func decimal(_ value: Double, decimals: Int) {
        switch decimals {
        case 9: decimal9(value)
        case 3: decimal3(value)
        case 2: decimal2(value)
        case 4: decimal4(value)
        case 6: decimal6(value)
        case 1: decimal1(value)
        default: fixedPoint(value, decimals: decimals)
        }
    }

    // One copy per count of decimals the writers use, in which 10^decimals is a
    // constant: dividing by it is then a multiplication. (Inlined all into `decimal`,
    // the copies exceed the inliner's budget, and most would not be specialized.)
    @inline(never) private mutating func decimal9(_ value: Double) { fixedPoint(value, decimals: 9) }
    @inline(never) private mutating func decimal6(_ value: Double) { fixedPoint(value, decimals: 6) }
    @inline(never) private mutating func decimal4(_ value: Double) { fixedPoint(value, decimals: 4) }
    @inline(never) private mutating func decimal3(_ value: Double) { fixedPoint(value, decimals: 3) }
    @inline(never) private mutating func decimal2(_ value: Double) { fixedPoint(value, decimals: 2) }
    @inline(never) private mutating func decimal1(_ value: Double) { fixedPoint(value, decimals: 1) }

    @inline(__always)
    private mutating func fixedPoint(_ value: Double, decimals: Int) {
        guard value.isFinite else {
            literal("null")
            return
        }
        let divisor = ByteWriter.powerOfTen(decimals)
        let product = abs(value) * Double(divisor)
        // `product.rounded()` (half away from zero) without the libm call: truncating
        // is exact below 2^63, and so is the fraction `product - truncated`. Signed
        // conversions, because x86-64 has single instructions only for those.
        guard product < 9.1e15 else { return shortest(value) }
        let truncated = Int64(product)
        // Rounding up and the sign go either way about half of the time: bit arithmetic,
        // not branches. `fraction - 0.5` is exact from 0.25 up (Sterbenz), so its sign
        // bit is clear exactly when the fraction is at least 0.5.
        let fraction = product - Double(truncated)
        let roundsUp = ~(fraction - 0.5).bitPattern >> 63
        let units = UInt64(truncatingIfNeeded: truncated) &+ roundsUp
        guard units < 9_000_000_000_000_000 else { return shortest(value) }
        // A minus sign for a negative value that is not written as zero; -0.0 has the
        // sign bit too, but units 0.
        cursor.pointee = UInt8(ascii: "-")
        cursor += Int(truncatingIfNeeded: value.bitPattern >> 63 & (units == 0 ? 0 : 1))
        let whole = units / divisor
        if whole < 10_000 {
            smallInteger(whole)
        } else {
            digits(whole, count: ByteWriter.digitCount(whole))
        }
        if decimals > 0 {
            byte(UInt8(ascii: "."))
            digits(units % divisor, count: decimals)
        }
    }

    /// The number ``decimal(_:decimals:)`` writes for a finite `value`, as a `Double`: the
    /// product rounded the same way, divided back (exactly the double nearest to the
    /// written decimal), zero without a sign; `value` itself where the writer writes the
    /// shortest representation.
    package static func rounded(_ value: Double, decimals: Int) -> Double {
        let divisor = Double(powerOfTen(decimals))
        let product = abs(value) * divisor
        guard product < 9.1e15 else { return value }
        let units = product.rounded(.toNearestOrAwayFromZero)
        guard units < 9e15 else { return value }
        guard units != 0 else { return 0 }
        return value < 0 ? -units / divisor : units / divisor
    }

    /// Writes `value` beyond exact integers: Swift's shortest representation (at most 24 characters).
    private mutating func shortest(_ value: Double) {
        var text = "\(value)"
        text.withUTF8 { bytes($0) }
    }

    /// The earliest and latest times ``iso8601(_:)`` writes as themselves, seconds since
    /// 1970: 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z, ISO 8601's four-digit years.
    package static let iso8601Range = -62_167_219_200.0...253_402_300_799.999

    /// Writes `date` as ISO 8601 UTC with milliseconds (`2024-05-01T12:00:00.250Z`): 24 bytes.
    ///
    /// Total: a date outside ``iso8601Range`` (which no fix carries: the validation rejects
    /// it) is written as the nearest end of that range, and a NaN date as its start, so that
    /// the output always parses as a time.
    package mutating func iso8601(_ date: Date) {
        let since1970 = date.timeIntervalSince1970
        let range = ByteWriter.iso8601Range
        let clamped = since1970 >= range.lowerBound ? min(since1970, range.upperBound) : range.lowerBound
        // Whole milliseconds, rounded down: `rounded(.down)` without the libm call.
        let scaled = clamped * 1000
        var totalMilliseconds = Int(scaled)
        if Double(totalMilliseconds) > scaled { totalMilliseconds -= 1 }
        // A whole millisecond that a Double cannot hold is stored a little below it (03:29:55.376
        // of 2004-08-07 as .37599992...): within two units in the last place of the product
        // it is that millisecond, written as itself, not one less.
        if Double(totalMilliseconds + 1) - scaled <= 2 * scaled.ulp { totalMilliseconds += 1 }
        let milliseconds = totalMilliseconds.mod(1000)
        let seconds = (totalMilliseconds - milliseconds) / 1000
        let secondOfDay = seconds.mod(86_400)
        let (year, month, day) = UTCCalendar.civil(days: (seconds - secondOfDay) / 86_400)
        digits(UInt64(year), count: 4)
        byte(UInt8(ascii: "-"))
        digits(UInt64(month), count: 2)
        byte(UInt8(ascii: "-"))
        digits(UInt64(day), count: 2)
        byte(UInt8(ascii: "T"))
        digits(UInt64(secondOfDay / 3600), count: 2)
        byte(UInt8(ascii: ":"))
        digits(UInt64(secondOfDay / 60 % 60), count: 2)
        byte(UInt8(ascii: ":"))
        digits(UInt64(secondOfDay % 60), count: 2)
        byte(UInt8(ascii: "."))
        digits(UInt64(milliseconds), count: 3)
        byte(UInt8(ascii: "Z"))
    }

    /// Runs `body` with a writer over a temporary buffer of `capacity` bytes, then appends what it wrote to `out`.
    ///
    /// A buffer of at most 1024 bytes is on the stack; a larger one is allocated on the heap.
    package static func append(to out: inout [UInt8], capacity: Int, _ body: (inout ByteWriter) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var writer = ByteWriter(buffer.baseAddress!)
            body(&writer)
            out.append(contentsOf: writer.written)
        }
    }
}
