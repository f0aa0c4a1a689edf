import Foundation
import Testing

@testable import LocationFormats
@testable import LocationState

/// The GPSLogger form as Home Assistant's gpslogger webhook reads it
/// (homeassistant/components/gpslogger/__init__.py, Home Assistant 2025.4.4): the body of
/// `await request.post()` (:62) checked against WEBHOOK_SCHEMA (:41-54).
@Suite(.timeLimit(.minutes(10))) struct GPSLoggerFormTests {
    /// A fix at 12 m/s with every value the encoders send.
    private let fix = StandInFixtures.fix

    /// The form body decoded as aiohttp's `request.post()` decodes it.
    private func fields(_ form: GPSLoggerForm?) throws -> [String: String] {
        let form = try #require(form)
        var components = URLComponents()
        components.percentEncodedQuery = String(decoding: form.body, as: UTF8.self)
        let items = try #require(components.queryItems)
        return Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.value ?? "") })
    }

    /// Only names the schema has (a key more is a 422, "extra keys not allowed": the schema
    /// keeps voluptuous' default PREVENT_EXTRA), in the units the GPSLogger app sends.
    @Test func namesAndUnitsAreTheSchemas() throws {
        let form = try #require(GPSLoggerForm(fix, deviceID: "van"))
        #expect(
            form.items.map(\.name) == [
                "latitude", "longitude", "device", "accuracy", "speed", "direction", "altitude", "provider",
            ])
        let schema: Set = [
            "device", "latitude", "longitude", "accuracy", "activity", "altitude", "battery", "direction", "provider",
            "speed",
        ]
        #expect(Set(form.items.map(\.name)).isSubset(of: schema))
        let fields = try fields(form)
        #expect(fields["device"] == "van")
        #expect(fields["latitude"] == "52.514512346" && fields["longitude"] == "-13.350098765")
        // `speed` is shown as sent; the app's %SPD is metres per second.
        #expect(fields["speed"] == "12.000")
        #expect(fields["direction"] == "271.2500")
        // Above mean sea level when known, as the OsmAnd and OwnTracks fields.
        #expect(fields["altitude"] == "35.600")
        // The horizontal error, the entity's gps_accuracy (device_tracker.py:147).
        #expect(fields["accuracy"] == "4.400")
        #expect(fields["provider"] == "gpsd")
    }

    /// The schema has no time: the fix time is not sent (Home Assistant takes the arrival).
    @Test func noTimeIsSent() throws {
        #expect(try fields(GPSLoggerForm(fix, deviceID: "van")).keys.allSatisfy { !$0.contains("time") })
    }

    /// A value the fix lacks is left out, never 0: Home Assistant fills `accuracy` with 200
    /// and `battery` with -1 (:46, :49); `device`, `latitude` and `longitude` are required (:43-45).
    @Test func missingValuesAreLeftOut() throws {
        let bare = Location(time: Date(timeIntervalSince1970: 10), mode: .twoD, lat: 1, lon: 2, source: .replay)
        let form = try #require(GPSLoggerForm(bare, deviceID: "van"))
        #expect(form.items.map(\.name) == ["latitude", "longitude", "device", "provider"])
        #expect(try fields(form)["provider"] == "replay")
    }

    /// The ellipsoid height stands in only when the height above sea level is unknown.
    @Test func altitudeAboveTheEllipsoidWhenSeaLevelIsUnknown() throws {
        let fix = Location(time: Date(), mode: .threeD, lat: 1, lon: 2, altHAE: 100.4, source: .gpsd)
        #expect(try fields(GPSLoggerForm(fix, deviceID: "x"))["altitude"] == "100.400")
    }

    /// Without a finite position or a time there is nothing to send.
    @Test func noFormWithoutPositionOrTime() {
        #expect(GPSLoggerForm(Location(time: Date(), mode: .noFix, source: .gpsd), deviceID: "x") == nil)
        #expect(GPSLoggerForm(Location(mode: .threeD, lat: 1, lon: 2, source: .gpsd), deviceID: "x") == nil)
        #expect(
            GPSLoggerForm(Location(time: Date(), mode: .threeD, lat: 1, lon: .infinity, source: .gpsd), deviceID: "x")
                == nil)
    }

    /// Plain decimals `float()` reads (cv.latitude and vol.Coerce(float)); a non-finite
    /// measurement is left out.
    @Test func numbersArePlainDecimals() throws {
        var fix = self.fix
        fix.speed = 1e-9
        fix.eph = .nan
        let fields = try fields(GPSLoggerForm(fix, deviceID: "x"))
        #expect(fields["speed"] == "0.000" && fields["accuracy"] == nil)
        for (name, value) in fields where !["device", "provider"].contains(name) {
            #expect(!value.lowercased().contains("e") && Double(value) != nil, "\(name)=\(value)")
        }
    }

    /// The body is percent-encoded outside RFC 3986's unreserved characters: aiohttp reads
    /// a bare `+` as a space.
    @Test func bodyIsPercentEncoded() throws {
        let fix = Location(time: Date(timeIntervalSince1970: 5), mode: .twoD, lat: -1.5, lon: 2, source: .gpsd)
        let form = try #require(GPSLoggerForm(fix, deviceID: "van+1 é&x=y"))
        #expect(
            String(decoding: form.body, as: UTF8.self)
                == "latitude=-1.500000000&longitude=2.000000000&device=van%2B1%20%C3%A9%26x%3Dy&provider=gpsd")
        #expect(try fields(form)["device"] == "van+1 é&x=y")
    }
}
