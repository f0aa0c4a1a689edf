import Foundation
import LocationTestSupport
import Testing

@testable import LocationState

@Suite(.timeLimit(.minutes(10)))
struct JSONStringTests {
    /// Every string comes back as it went in through a JSON parser, whatever it holds.
    @Test(arguments: [
        "", "plain", "quote \" and backslash \\", "slash / stays", "line\nfeed\rreturn\ttab",
        String((0..<0x20).map { Character(Unicode.Scalar(UInt8($0))) }), "\u{7F} é 日本 🚗",
    ])
    func quotedStringsParseBackToThemselves(_ text: String) throws {
        let parsed = try JSONDecoder().decode([String].self, from: Data("[\(text.jsonQuoted)]".utf8))
        #expect(parsed == [text])
        #expect(text.jsonQuoted.unicodeScalars.allSatisfy { $0.value >= 0x20 }, "a raw control character")
    }
}
