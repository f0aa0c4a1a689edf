import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationState

@Suite(.timeLimit(.minutes(10))) struct OwnTracksLocationTests {
    /// The payload as a dictionary, through Foundation's JSON parser (not ours).
    private func decode(_ bytes: [UInt8]?) throws -> [String: Any] {
        let bytes = try #require(bytes)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func fieldsAndUnitsFollowTheBooklet() throws {
        let fix = Location(
            time: Date(timeIntervalSince1970: 1_778_749_200.75), mode: .threeD, lat: 52.514_512_345_6,
            lon: 13.350_098_765_4, altHAE: 80.2, altMSL: 35.6, speed: 1.4, track: 359.6, eph: 4.4, epv: 7.5,
            source: .gpsd, device: "/dev/ttyACM0")
        let json = try decode(
            OwnTracksLocation(fix, trackerID: "pi", createdAt: Date(timeIntervalSince1970: 1_778_749_201.9)).payload)
        #expect(json["_type"] as? String == "location")
        #expect((json["lat"] as? Double).map { abs($0 - 52.514_512_3) < 1e-9 } == true)
        #expect((json["lon"] as? Double).map { abs($0 - 13.350_098_8) < 1e-9 } == true)
        // Integer seconds of the fix time, not of the publication.
        #expect(json["tst"] as? Int == 1_778_749_200)
        #expect(json["created_at"] as? Int == 1_778_749_201)
        #expect(json["acc"] as? Int == 4)
        // Above mean sea level when known.
        #expect(json["alt"] as? Int == 36)
        #expect(json["vac"] as? Int == 8)
        // 1.4 m/s = 5.04 km/h.
        #expect(json["vel"] as? Int == 5)
        // 359.6° rounds to 360, which is 0.
        #expect(json["cog"] as? Int == 0)
        #expect(json["tid"] as? String == "pi")
        #expect(json["t"] as? String == "t")
        #expect(json["source"] as? String == "gpsd")
        #expect(json["batt"] == nil)
        #expect(
            Set(json.keys) == [
                "_type", "lat", "lon", "tst", "acc", "alt", "vac", "vel", "cog", "tid", "t",
                "created_at", "source",
            ])
    }

    @Test func absentValuesAreLeftOutNotZero() throws {
        let fix = Location(
            time: Date(timeIntervalSince1970: 10), mode: .twoD, lat: -33.9, lon: 151.2, source: .simulated)
        let json = try decode(
            OwnTracksLocation(fix, trackerID: "ab", createdAt: Date(timeIntervalSince1970: 0)).payload)
        #expect(Set(json.keys) == ["_type", "lat", "lon", "tst", "tid", "t", "created_at", "source"])
        #expect(json["source"] as? String == "simulated")
    }

    @Test func altitudeAboveTheEllipsoidOnlyWhenMeanSeaLevelIsUnknown() throws {
        let fix = Location(time: Date(), mode: .threeD, lat: 1, lon: 2, altHAE: 100.4, source: .replay)
        let json = try decode(OwnTracksLocation(fix, trackerID: "ab", createdAt: Date()).payload)
        #expect(json["alt"] as? Int == 100)
    }

    @Test func noPositionNoMessage() {
        let fix = Location(time: Date(), mode: .noFix, source: .gpsd)
        #expect(OwnTracksLocation(fix, trackerID: "ab", createdAt: Date()).payload == nil)
    }

    /// OwnTracks requires `tst`: a fix without a time (a gpsd session's first report can
    /// lack one) is no OwnTracks location.
    @Test func noTimeNoMessage() {
        let fix = Location(mode: .threeD, lat: 1, lon: 2, eph: 5, source: .gpsd)
        #expect(OwnTracksLocation(fix, trackerID: "ab", createdAt: Date()).payload == nil)
    }

    @Test(arguments: [("raspberrypi", "pi"), ("x", "x"), ("car-7", "-7")])
    func trackerIDIsTheDeviceNamesLastTwoCharacters(device: String, tid: String) {
        #expect(OwnTracksLocation.trackerID(forDevice: device) == tid)
    }

    @Test func trackerIDIsEscaped() throws {
        let fix = Location(time: Date(), mode: .twoD, lat: 1, lon: 2, source: .restored)
        let json = try decode(OwnTracksLocation(fix, trackerID: "a\"", trigger: .ping, createdAt: Date()).payload)
        #expect(json["tid"] as? String == "a\"")
        #expect(json["t"] as? String == "p")
        #expect(json["source"] as? String == "restored")
    }
}
