/// The NMEA 0183 checksum: the XOR of every byte between the leading `$` (or `!`) and the `*`.
public enum NMEAChecksum {
    /// The checksum of `body`, the bytes between `$` and `*` (neither included).
    public static func compute<Bytes: Sequence>(_ body: Bytes) -> UInt8 where Bytes.Element == UInt8 {
        var sum: UInt8 = 0
        for byte in body { sum ^= byte }
        return sum
    }

    /// The checksum of `body` as the two upper-case hex digits that follow `*`.
    public static func hex(_ body: some StringProtocol) -> String {
        let sum = compute(body.utf8)
        return String(hexDigits[Int(sum >> 4)]) + String(hexDigits[Int(sum & 0xF)])
    }

    /// The value of one hex digit (either case), or nil for any other byte.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
        default: nil
        }
    }

    private static let hexDigits: [Character] = Array("0123456789ABCDEF")
}
