/// Up to eight bytes of a buffer tested at once (SWAR, "SIMD within a register").
///
/// The bytes sit in a `UInt64`, the first in the lowest eight bits. Each test returns
/// a mask with 0x80 in every byte that passes and 0 elsewhere, exactly (no carry
/// crosses a byte), so `trailingZeroBitCount / 8` is the first match and
/// `(63 - leadingZeroBitCount) / 8` the last.
package struct ByteWord {
    /// The bytes; 0 past the end of what was read.
    package let bits: UInt64
    /// 0xFF in each byte that was read, 0 past the end.
    package let valid: UInt64

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// The bytes of `buffer` from `offset` up to eight or to `end`, whichever comes first.
    ///
    /// - Important: `offset < end <= buffer.count`.
    @inline(__always)
    package init(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int, end: Int) {
        // Unchecked arithmetic and unwrap: the precondition bounds both, and this runs for every eight bytes read.
        let available = end &- offset
        if available >= 8 {
            bits = UInt64(
                littleEndian: UnsafeRawPointer(buffer.baseAddress.unsafelyUnwrapped + offset).loadUnaligned(
                    as: UInt64.self))
            valid = .max
        } else {
            var bits: UInt64 = 0
            for index in 0..<available { bits |= UInt64(buffer[offset + index]) << (8 * index) }
            self.bits = bits
            valid = ByteWord.firstBytes(available)
        }
    }

    /// 0xFF in each of the first `count` (0...7) bytes.
    @inline(__always)
    package static func firstBytes(_ count: Int) -> UInt64 {
        (1 << (8 * UInt64(count))) &- 1
    }

    /// 0x80 in each byte of `word` that is zero.
    @inline(__always)
    package static func zeroBytes(_ word: UInt64) -> UInt64 {
        ~(((word & low7) &+ low7) | word | low7)
    }

    /// 0x80 in each valid byte equal to `byte`.
    @inline(__always)
    package func matching(_ byte: UInt8) -> UInt64 {
        ByteWord.zeroBytes(bits ^ (ByteWord.ones &* UInt64(byte))) & valid
    }

    /// 0x80 in each valid byte outside printable ASCII (32...126).
    @inline(__always)
    package var unprintable: UInt64 {
        (ByteWord.zeroBytes(bits & 0xE0E0_E0E0_E0E0_E0E0) | bits | matching(127)) & valid & 0x8080_8080_8080_8080
    }
}
