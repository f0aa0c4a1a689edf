import Foundation
import LocationTestSupport
import Testing

@testable import locationd

@Suite(.timeLimit(.minutes(10))) struct HTTPDateTests {
    @Test func imfFixdateAsRFC9110WritesIt() {
        // RFC 9110, 5.6.7's example, and a date with single-digit fields.
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(1_798_761_605) == "Fri, 01 Jan 2027 00:00:05 GMT")
    }
}
