import Foundation

/// Writes ASCII output through a raw pointer into a buffer the caller sized, without bounds checks.
///
/// - Important: the caller guarantees capacity: every method writes at most the bytes
///   its documentation states (``decimal(_:decimals:)`` at most 32).
struct ByteWriter {
    /// Where the next byte goes.
    private(set) var cursor: UnsafeMutablePointer<UInt8>
    private let start: UnsafeMutablePointer<UInt8>

    init(_ start: UnsafeMutablePointer<UInt8>) {
        self.start = start
        cursor = start
    }

    /// Bytes written so far.
    var count: Int { cursor - start }

    /// The bytes written so far.
    var written: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: start, count: count) }

    /// Writes one byte.
    @inline(__always)
    mutating func byte(_ value: UInt8) {
        cursor.pointee = value
        cursor += 1
    }

    /// Writes a string literal's bytes.
    @inline(__always)
    mutating func literal(_ text: StaticString) {
        cursor.update(from: text.utf8Start, count: text.utf8CodeUnitCount)
        cursor += text.utf8CodeUnitCount
    }

    /// Writes `bytes`.
    mutating func bytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        cursor.update(from: base, count: bytes.count)
        cursor += bytes.count
    }

    /// Writes an integer in decimal, zero-padded to `width` (at most 24) digits; at most 25 bytes.
    mutating func integer(_ value: Int, width: Int = 1) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        let magnitude = UInt64(value.magnitude)
        var digits = 1
        var threshold: UInt64 = 10
        while digits < 20, magnitude >= threshold {
            digits += 1
            threshold &*= 10
        }
        self.digits(magnitude, count: max(digits, width))
    }

    /// Writes the last `count` decimal digits of `value`, zero-padded, two at a time.
    @inline(__always)
    private mutating func digits(_ value: UInt64, count: Int) {
        var rest = value
        var remaining = count
        var position = cursor + count
        cursor = position
        let pairs = ByteWriter.digitPairs.utf8Start
        while remaining >= 2 {
            let pair = Int(rest % 100)
            rest /= 100
            position -= 2
            position[0] = pairs[2 * pair]
            position[1] = pairs[2 * pair + 1]
            remaining -= 2
        }
        if remaining == 1 {
            position -= 1
            position.pointee = UInt8(truncatingIfNeeded: 48 &+ rest % 10)
        }
    }

    /// `00`, `01`, ... `99`: the two digits of each number below 100, with a `\` line
    /// continuation so that the literal stays one `StaticString`.
    private static var digitPairs: StaticString {
        """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """
    }

    /// 10^0 ... 10^12.
    private static let scales:
        (
            Double, Double, Double, Double, Double, Double, Double, Double, Double, Double, Double,
            Double, Double
        ) = (1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12)

    /// Writes `value` rounded to `decimals` (0...12) places, `null` when not finite; at most 32 bytes.
    mutating func decimal(_ value: Double, decimals: Int) {
        guard value.isFinite else {
            literal("null")
            return
        }
        let scale = withUnsafeBytes(of: ByteWriter.scales) { $0.load(fromByteOffset: decimals * 8, as: Double.self) }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9.0e15 else {
            // Beyond exact integers: Swift's shortest representation (at most 24 characters).
            var text = "\(value)"
            text.withUTF8 { bytes($0) }
            return
        }
        if value < 0, scaled != 0 { byte(UInt8(ascii: "-")) }
        var units = UInt64(scaled)
        let divisor = UInt64(scale)
        integer(Int(units / divisor))
        if decimals > 0 {
            byte(UInt8(ascii: "."))
            units %= divisor
            digits(units, count: decimals)
        }
    }

    /// Writes `date` as ISO 8601 UTC with milliseconds (`2024-05-01T12:00:00.250Z`); 24 bytes for years 0...9999.
    mutating func iso8601(_ date: Date) {
        let totalMilliseconds = Int((date.timeIntervalSince1970 * 1000).rounded(.down))
        let milliseconds = totalMilliseconds.mod(1000)
        let seconds = (totalMilliseconds - milliseconds) / 1000
        let secondOfDay = seconds.mod(86_400)
        let (year, month, day) = UTCCalendar.civil(days: (seconds - secondOfDay) / 86_400)
        integer(year, width: 4)
        byte(UInt8(ascii: "-"))
        integer(month, width: 2)
        byte(UInt8(ascii: "-"))
        integer(day, width: 2)
        byte(UInt8(ascii: "T"))
        integer(secondOfDay / 3600, width: 2)
        byte(UInt8(ascii: ":"))
        integer(secondOfDay / 60 % 60, width: 2)
        byte(UInt8(ascii: ":"))
        integer(secondOfDay % 60, width: 2)
        byte(UInt8(ascii: "."))
        integer(milliseconds, width: 3)
        byte(UInt8(ascii: "Z"))
    }

    /// Runs `body` with a writer over a temporary buffer of `capacity` bytes, then appends what it wrote to `out`.
    static func append(to out: inout [UInt8], capacity: Int, _ body: (inout ByteWriter) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var writer = ByteWriter(buffer.baseAddress!)
            body(&writer)
            out.append(contentsOf: writer.written)
        }
    }
}
