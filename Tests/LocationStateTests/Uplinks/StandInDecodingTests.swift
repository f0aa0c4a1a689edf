import Foundation
import LocationTestSupport
import Testing

/// How the stand-ins read text as each server's library does: Netty's and Python's query
/// decoders, Java's, Python's and C's numbers, strict JSON, the servers' time formats.
@Suite struct StandInDecodingTests {
    /// Netty's QueryStringDecoder (decodeParams, decodeComponent): `&` and `;` separate,
    /// `#` ends, a leading `=` is skipped, `+` is a space, `%XX` runs are UTF-8, a name
    /// repeats into one list in first-seen order.
    @Test func nettyQuery() throws {
        let query = try QueryParameters.netty(Array("/p?a=1;b=x+y&=c=2&a=%C3%A9&d#e=3".utf8), hasPath: true)
        #expect(query.parameters.map(\.name) == ["a", "b", "c", "d"])
        #expect(query.parameters.first?.values == ["1", "é"])
        #expect(query.first("b") == "x y")
        #expect(query.first("c") == "2")
        #expect(query.first("d") == "")
        #expect(query.first("e") == nil)
        #expect(try QueryParameters.netty(Array("/path#?a=1".utf8), hasPath: true).isEmpty)
        #expect(throws: QueryParameters.MalformedEscape.self) {
            try QueryParameters.netty(Array("a=%4".utf8), hasPath: false)
        }
    }

    /// Python's parse_qsl (keep_blank_values) as aiohttp reads a query for Home Assistant:
    /// only `&` separates, a malformed `%` stays; Rack refuses it.
    @Test func pythonAndRackQueries() {
        let query = QueryParameters.python(Array("a=1;b=2&&c=%zz&d".utf8))
        #expect(query.first("a") == "1;b=2")
        #expect(query.first("c") == "%zz")
        #expect(query.first("d") == "")
        #expect(throws: QueryParameters.MalformedEscape.self) { try QueryParameters.rack(Array("c=%zz".utf8)) }
    }

    /// Java's parseLong and parseDouble (Traccar), Python's int() and float() (Home
    /// Assistant), C's atof (the Recorder).
    @Test func numbers() {
        #expect(ServerNumbers.javaLong("+1700000000") == 1_700_000_000)
        #expect(ServerNumbers.javaLong("1700000000.5") == nil)
        #expect(ServerNumbers.javaLong(" 17") == nil)
        #expect(ServerNumbers.javaDouble(" 52.5d ") == 52.5)
        #expect(ServerNumbers.javaDouble("1e3") == 1000)
        #expect(ServerNumbers.javaDouble("NaN")?.isNaN == true)
        #expect(ServerNumbers.javaDouble("nan") == nil)
        #expect(ServerNumbers.javaDouble("") == nil)
        #expect(ServerNumbers.pythonFloat(" 1_0.5 ") == 10.5)
        #expect(ServerNumbers.pythonFloat("Infinity") == .infinity)
        #expect(ServerNumbers.pythonFloat("1__0") == nil)
        #expect(ServerNumbers.pythonInt(" -17 ") == -17)
        #expect(ServerNumbers.pythonInt("1.0") == nil)
        #expect(ServerNumbers.cAtof("  52.5abc") == 52.5)
        #expect(ServerNumbers.cAtof("abc") == 0)
        #expect(ServerNumbers.cAtof("1e5x") == 100_000)
    }

    /// Strict JSON that keeps a number's text and tells `true` from `1`; the last of a
    /// repeated member wins.
    @Test func json() throws {
        let value = try #require(JSONValue(parsing: Array(#" {"a":1,"b":true,"a":2.50,"s":"\u00e9\n"} "#.utf8)))
        #expect(value["a"] == .number("2.50"))
        #expect(value["b"] == .bool(true))
        #expect(value["s"]?.string == "é\n")
        #expect(value["a"]?.isInteger == false)
        for bad in ["{\"a\":01}", "{\"a\":1,}", "[1] x", "{'a':1}", "{\"a\":.5}", "{\"a\":\"\u{01}\"}", "NaN"] {
            #expect(JSONValue(parsing: Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    /// Java's ISO_ZONED_DATE_TIME needs an offset; Ruby's DateTime.parse takes none (UTC)
    /// and `-0700`.
    @Test func times() {
        #expect(ServerTimes.javaZoned("2016-01-27T18:55:47Z")?.timeIntervalSince1970 == 1_453_920_947)
        #expect(ServerTimes.javaZoned("2016-01-27T19:55:47.5+01:00")?.timeIntervalSince1970 == 1_453_920_947.5)
        #expect(ServerTimes.javaZoned("2016-01-27T18:55:47") == nil)
        #expect(ServerTimes.javaZoned("2016-02-30T18:55:47Z") == nil)
        #expect(ServerTimes.rubyDateTime("2015-10-01T08:00:00-0700")?.timeIntervalSince1970 == 1_443_711_600)
        #expect(ServerTimes.rubyDateTime("2015-10-01 15:00:00")?.timeIntervalSince1970 == 1_443_711_600)
        #expect(ServerTimes.traccarLocal("2014-06-04 09:10:11")?.timeIntervalSince1970 == 1_401_873_011)
    }
}
