/// The two-letter talker identifier that opens a sentence tag (`GP`, `GN`, `GL`, `BD`, ...).
public struct NMEATalker: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The first letter, as an ASCII byte.
    public let first: UInt8
    /// The second letter, as an ASCII byte.
    public let second: UInt8

    /// A talker from its two ASCII bytes.
    public init(first: UInt8, second: UInt8) {
        self.first = first
        self.second = second
    }

    /// A talker from a two-letter literal such as `"GP"`.
    public init(stringLiteral value: String) {
        let bytes = Array(value.utf8)
        precondition(bytes.count == 2, "a talker is two letters")
        self.init(first: bytes[0], second: bytes[1])
    }

    public var description: String { String(decoding: [first, second], as: UTF8.self) }
}
