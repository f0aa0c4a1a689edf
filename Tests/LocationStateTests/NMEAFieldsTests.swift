import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationProviders
@testable import LocationState

@Suite(.timeLimit(.minutes(10)))
struct NMEAFieldsTests {
    /// What a field's number must be, from the grammar and Swift's own parser rather
    /// than from a second copy of the fast code: a sign, digits with at most one
    /// point, at least one digit; more than 18 significant digits before the point is
    /// no number (gpsd's fields never have them), digits after the 18th are dropped.
    /// The value then is `Double(String)`'s, to within one unit in the last place
    /// (the fast parser divides an exact integer by a power of ten, which may round
    /// once more than a correctly rounded conversion).
    static func expectedNumber(_ field: [UInt8]) -> Double? {
        var text = String(decoding: field, as: UTF8.self)
        var sign = ""
        if let first = text.first, first == "-" || first == "+" {
            sign = first == "-" ? "-" : ""
            text.removeFirst()
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            parts.contains(where: { !$0.isEmpty })
        else { return nil }
        let integer = parts[0].drop { $0 == "0" }
        guard integer.count <= 18 else { return nil }
        // Digits beyond the 18th significant one are dropped, not rounded.
        var fraction = parts.count == 2 ? Substring(parts[1]) : ""
        let leadingZeros = integer.isEmpty ? fraction.prefix { $0 == "0" }.count : 0
        fraction = fraction.prefix(min(18, max(0, 18 - integer.count + leadingZeros)))
        return Double(sign + (integer.isEmpty ? "0" : String(integer)) + "." + fraction + "0")
    }

    /// Whether `actual` is `expected` to within one unit in the last place.
    static func matches(_ actual: Double?, _ expected: Double?) -> Bool {
        guard let actual, let expected else { return actual == nil && expected == nil }
        return actual == expected || actual == expected.nextUp || actual == expected.nextDown
    }

    @Test(arguments: [
        ("4916.45", 4916.45), ("-0.5", -0.5), ("+12", 12.0), (".5", 0.5), ("5.", 5.0), ("007", 7.0),
        ("123456789012345678", 123_456_789_012_345_678.0),
    ])
    func numbersFromATable(text: String, value: Double) {
        let field = Array(text.utf8)
        #expect(field.withUnsafeBufferPointer { NMEAFields.number($0, 0..<field.count) } == value)
    }

    @Test(arguments: ["", "-", ".", "1.2.3", "12a", "1 2", "--1", "1234567890123456789"])
    func notNumbersFromATable(text: String) {
        let field = Array(text.utf8)
        #expect(field.withUnsafeBufferPointer { NMEAFields.number($0, 0..<field.count) } == nil)
    }

    @Test func numbersMatchTheDigitByDigitDefinition() {
        var random = SplitMix64(seed: 20_260_522)
        let alphabet = Array("0123456789012345678901234567890123456789..-+x/: ".utf8)
        var checked = 0
        for _ in 0..<200_000 {
            let length = Int.random(in: 0...22, using: &random)
            let field = (0..<length).map { _ in alphabet.randomElement(using: &random)! }
            // Bytes around the field, so that the word reads see other bytes before it.
            let before = Int.random(in: 0...20, using: &random)
            let after = Int.random(in: 0...3, using: &random)
            let buffer = Array(repeating: UInt8(ascii: ","), count: before) + field + Array("9*".utf8.prefix(after))
            let expected = NMEAFieldsTests.expectedNumber(field)
            let actual = buffer.withUnsafeBufferPointer { NMEAFields.number($0, before..<(before + length)) }
            #expect(Self.matches(actual, expected), "\(String(decoding: field, as: UTF8.self))")
            if expected != nil { checked += 1 }
        }
        #expect(checked > 10_000)
    }

    @Test func numbersOfEveryLengthMatchTheDefinition() {
        var random = SplitMix64(seed: 7)
        for length in 1...20 {
            for _ in 0..<2_000 {
                var field = (0..<length).map { _ in UInt8(ascii: "0") + UInt8.random(in: 0...9, using: &random) }
                if Bool.random(using: &random) { field[Int.random(in: 0..<length, using: &random)] = UInt8(ascii: ".") }
                let buffer = Array(repeating: UInt8(ascii: ","), count: 16) + field
                let expected = NMEAFieldsTests.expectedNumber(field)
                let actual = buffer.withUnsafeBufferPointer { NMEAFields.number($0, 16..<(16 + length)) }
                #expect(Self.matches(actual, expected), "\(String(decoding: field, as: UTF8.self))")
            }
        }
    }
}
