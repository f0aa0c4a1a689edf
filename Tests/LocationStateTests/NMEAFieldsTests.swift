import Testing

@testable import LocationState

struct NMEAFieldsTests {
    /// The plain definition of a field's number, digit by digit: at most 18 significant
    /// digits, a sign, one point; what ``NMEAFields/number(_:_:)`` must return bit for bit.
    static func referenceNumber(_ field: [UInt8]) -> Double? {
        var position = 0
        var negative = false
        if let first = field.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            position = 1
        }
        var mantissa: UInt64 = 0
        var significant = 0
        var fractionDigits = 0
        var seenDigit = false
        var seenPoint = false
        while position < field.count {
            let byte = field[position]
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
        var scale = 1.0
        for _ in 0..<fractionDigits { scale *= 10 }
        let value = Double(mantissa) / scale
        return negative ? -value : value
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
            let expected = NMEAFieldsTests.referenceNumber(field)
            let actual = buffer.withUnsafeBufferPointer { NMEAFields.number($0, before..<(before + length)) }
            #expect(actual?.bitPattern == expected?.bitPattern, "\(String(decoding: field, as: UTF8.self))")
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
                let expected = NMEAFieldsTests.referenceNumber(field)
                let actual = buffer.withUnsafeBufferPointer { NMEAFields.number($0, 16..<(16 + length)) }
                #expect(actual?.bitPattern == expected?.bitPattern, "\(String(decoding: field, as: UTF8.self))")
            }
        }
    }
}
