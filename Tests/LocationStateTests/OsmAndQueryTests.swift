import Foundation
import Testing

@testable import LocationFormats
@testable import LocationState

/// The OsmAnd query as Traccar's OsmAndProtocolDecoder (traccar/traccar
/// src/main/java/org/traccar/protocol/OsmAndProtocolDecoder.java), Home Assistant's traccar
/// webhook (homeassistant/components/traccar/__init__.py) and PhoneTrack's log/traccar route
/// (lib/Controller/LogController.php logTraccar) read it.
@Suite(.timeLimit(.minutes(10))) struct OsmAndQueryTests {
    private let fix = Location(
        time: Date(timeIntervalSince1970: 1_778_749_200.75), mode: .threeD, lat: 52.514_512_345_6,
        lon: -13.350_098_765_4, altHAE: 80.2, altMSL: 35.6, speed: 10, track: 271.25, eph: 4.4, epv: 7.5,
        satellitesUsed: 9, hdop: 0.87, source: .gpsd, device: "/dev/ttyACM0")

    private func fields(_ query: OsmAndQuery?) throws -> [String: String] {
        let query = try #require(query)
        return Dictionary(uniqueKeysWithValues: query.items.map { ($0.name, $0.value ?? "") })
    }

    /// Every field in the name and unit the decoder reads (lines 99-156), nothing else.
    @Test func namesAndUnitsAreTraccars() throws {
        let query = try #require(OsmAndQuery(fix, deviceID: "van", moving: true))
        #expect(
            query.items.map(\.name) == [
                "id", "timestamp", "lat", "lon", "speed", "bearing", "altitude", "accuracy", "hdop", "sat", "valid",
                "motion",
            ])
        let fields = try fields(query)
        #expect(fields["id"] == "van")
        #expect(fields["lat"] == "52.514512346")
        #expect(fields["lon"] == "-13.350098765")
        // `speed` goes through convertSpeed(value, "kn") (line 152): knots. 10 m/s = 19.438 kn.
        #expect(fields["speed"] == "19.438")
        #expect(fields["bearing"] == "271.2500")
        // Above mean sea level when known, as the OwnTracks payload.
        #expect(fields["altitude"] == "35.600")
        // The horizontal error as `accuracy` (line 155).
        #expect(fields["accuracy"] == "4.400")
        #expect(fields["hdop"] == "0.87")
        // Unknown keys become attributes (lines 160-170); `sat` and `motion` are Traccar's
        // own keys for satellites in use and motion (Position.java KEY_SATELLITES, KEY_MOTION).
        #expect(fields["sat"] == "9")
        #expect(fields["motion"] == "true")
        // Boolean.parseBoolean (line 112).
        #expect(fields["valid"] == "true")
    }

    /// `timestamp` is integer Unix seconds of the fix, rounded down: Traccar parses it with
    /// Long.parseLong (line 115) and Home Assistant with vol.Coerce(int) (schema line 52);
    /// a decimal closes Traccar's connection and is a 422 at Home Assistant.
    @Test func timestampIsIntegerSecondsOfTheFix() throws {
        var fix = self.fix
        fix.time = Date(timeIntervalSince1970: 1_700_000_000.999)
        #expect(try fields(OsmAndQuery(fix, deviceID: "x"))["timestamp"] == "1700000000")
        #expect(Int(try fields(OsmAndQuery(self.fix, deviceID: "x"))["timestamp"] ?? "") == 1_778_749_200)
    }

    /// From 2038-01-19 03:14:07 UTC on, milliseconds: Traccar reads an integer of
    /// Integer.MAX_VALUE or more as milliseconds (line 116).
    @Test func millisecondsFrom2038() throws {
        var fix = self.fix
        fix.time = Date(timeIntervalSince1970: 2_147_483_646.5)
        #expect(try fields(OsmAndQuery(fix, deviceID: "x"))["timestamp"] == "2147483646")
        fix.time = Date(timeIntervalSince1970: 2_147_483_647.25)
        #expect(try fields(OsmAndQuery(fix, deviceID: "x"))["timestamp"] == "2147483647250")
    }

    /// A value the fix lacks is left out, never 0: Home Assistant fills a missing `accuracy`
    /// with its own default (200), Traccar keeps the field unset.
    @Test func missingValuesAreLeftOut() throws {
        let bare = Location(time: Date(timeIntervalSince1970: 10), mode: .twoD, lat: 1, lon: 2, source: .gpsd)
        let query = try #require(OsmAndQuery(bare, deviceID: "van"))
        #expect(query.items.map(\.name) == ["id", "timestamp", "lat", "lon", "valid"])
    }

    /// The ellipsoid height stands in only when the height above sea level is unknown.
    @Test func altitudeAboveTheEllipsoidWhenSeaLevelIsUnknown() throws {
        let fix = Location(time: Date(), mode: .threeD, lat: 1, lon: 2, altHAE: 100.4, source: .gpsd)
        #expect(try fields(OsmAndQuery(fix, deviceID: "x"))["altitude"] == "100.400")
    }

    /// Without a position or a time there is nothing to send: Traccar would store the last
    /// known position at its own clock (lines 175-188).
    @Test func noQueryWithoutPositionOrTime() {
        #expect(OsmAndQuery(Location(time: Date(), mode: .noFix, source: .gpsd), deviceID: "x") == nil)
        #expect(OsmAndQuery(Location(mode: .threeD, lat: 1, lon: 2, source: .gpsd), deviceID: "x") == nil)
        #expect(
            OsmAndQuery(Location(time: Date(), mode: .threeD, lat: .nan, lon: 2, source: .gpsd), deviceID: "x") == nil)
    }

    /// `valid` is false for a position the receiver does not call a 2D or 3D fix.
    @Test func validOnlyForATwoOrThreeDimensionalFix() throws {
        let fix = Location(time: Date(), mode: .noFix, lat: 1, lon: 2, source: .restored)
        #expect(try fields(OsmAndQuery(fix, deviceID: "x"))["valid"] == "false")
    }

    /// Numbers are plain fixed-point decimals that Double.parseDouble and float() read: no
    /// exponent, no `nan` (a value Traccar cannot parse closes its connection without a reply,
    /// MainEventHandler.java lines 76-82); a non-finite measurement is left out.
    @Test func numbersArePlainDecimals() throws {
        var fix = self.fix
        fix.speed = 1e-9
        fix.altMSL = 12_345.678_9
        fix.eph = .infinity
        let fields = try fields(OsmAndQuery(fix, deviceID: "x"))
        #expect(fields["speed"] == "0.000")
        #expect(fields["altitude"] == "12345.679")
        #expect(fields["accuracy"] == nil)
        for (name, value) in fields where !["id", "valid", "motion"].contains(name) {
            #expect(!value.lowercased().contains("e") && Double(value) != nil, "\(name)=\(value)")
        }
    }

    /// Everything outside RFC 3986's unreserved characters is percent-encoded: Netty's
    /// QueryStringDecoder and aiohttp read a bare `+` as a space.
    @Test func queryIsPercentEncoded() throws {
        let fix = Location(time: Date(timeIntervalSince1970: 5), mode: .twoD, lat: -1.5, lon: 2, source: .gpsd)
        let query = try #require(OsmAndQuery(fix, deviceID: "van+1 é&x=y"))
        #expect(
            query.percentEncoded
                == "id=van%2B1%20%C3%A9%26x%3Dy&timestamp=5&lat=-1.500000000&lon=2.000000000&valid=true")
        var components = URLComponents()
        components.percentEncodedQuery = query.percentEncoded
        #expect(components.queryItems?.first?.value == "van+1 é&x=y")
    }
}
