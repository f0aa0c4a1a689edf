import Foundation
import Testing

@testable import LocationFormats
@testable import LocationState

/// The Overland body as Dawarich (Freika/dawarich app/services/overland/params.rb),
/// PhoneTrack (julien-nc/phonetrack lib/Controller/LogController.php logOverland) and Reitti
/// (dedicatedcode/reitti dto/OverlandLocationRequest.java) read it, in the Overland app's
/// format (aaronpk/Overland-iOS README "API").
@Suite(.timeLimit(.minutes(10))) struct OverlandBatchTests {
    private let fix = Location(
        time: Date(timeIntervalSince1970: 1_778_749_200.25), mode: .threeD, lat: 52.514_512_345_6,
        lon: -13.350_098_765_4, altHAE: 80.2, altMSL: 35.6, speed: 1.4, track: 271.25, eph: 4.4, epv: 7.5,
        eps: 0.3, satellitesUsed: 9, hdop: 0.87, source: .gpsd)

    /// The body's features, through Foundation's JSON parser (not ours).
    private func features(_ batch: OverlandBatch) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(batch.body)) as? [String: Any])
        #expect(Set(object.keys) == ["locations"])
        return try #require(object["locations"] as? [[String: Any]])
    }

    private func properties(_ feature: [String: Any]) throws -> [String: Any] {
        try #require(feature["properties"] as? [String: Any])
    }

    /// GeoJSON Point features with coordinates [lon, lat]: Dawarich builds
    /// `POINT(coordinates[0] coordinates[1])` (params.rb lines 46-51), PhoneTrack takes
    /// lat = coordinates[1] and lon = coordinates[0] (LogController.php lines 1583-1584).
    @Test func featuresArePointsWithLongitudeFirst() throws {
        var batch = OverlandBatch(deviceID: "van")
        let added = batch.append(fix)
        #expect(added)
        let feature = try #require(try features(batch).first)
        #expect(feature["type"] as? String == "Feature")
        let geometry = try #require(feature["geometry"] as? [String: Any])
        #expect(geometry["type"] as? String == "Point")
        let coordinates = try #require(geometry["coordinates"] as? [Double])
        #expect(coordinates.count == 2)
        #expect(abs(coordinates[0] - -13.350_098_765) < 1e-12)
        #expect(abs(coordinates[1] - 52.514_512_346) < 1e-12)
    }

    /// Properties in the Overland app's names and units, as Dawarich maps them
    /// (params.rb lines 19-31): `speed` in m/s (kept as velocity), `horizontal_accuracy`
    /// from eph, `altitude` above sea level, `device_id` as the tracker id, `motion` as the
    /// point's motion data (motion_data_extractor.rb lines 12-23).
    @Test func propertiesInOverlandsNamesAndUnits() throws {
        var batch = OverlandBatch(deviceID: "van")
        batch.append(fix, motion: [.driving, .stationary])
        let properties = try properties(try #require(try features(batch).first))
        #expect(
            Set(properties.keys) == [
                "timestamp", "altitude", "speed", "course", "horizontal_accuracy", "vertical_accuracy",
                "speed_accuracy", "motion", "device_id",
            ])
        #expect(properties["speed"] as? Double == 1.4)
        #expect(properties["altitude"] as? Double == 35.6)
        #expect(properties["course"] as? Double == 271.25)
        #expect(properties["horizontal_accuracy"] as? Double == 4.4)
        #expect(properties["vertical_accuracy"] as? Double == 7.5)
        #expect(properties["speed_accuracy"] as? Double == 0.3)
        #expect(properties["motion"] as? [String] == ["driving", "stationary"])
        #expect(properties["device_id"] as? String == "van")
    }

    /// `timestamp` is an ISO 8601 string in UTC with `Z`: Dawarich calls DateTime.parse on it
    /// (params.rb line 23; a number raises and the batch fails with 500), PhoneTrack
    /// `new DateTime(...)`, and Reitti reads it with ISO_OFFSET_DATE_TIME, which wants `Z` or
    /// `±hh:mm` (OverlandLocationRequest.java lines 92-100).
    @Test func timestampIsAnISO8601StringInUTC() throws {
        var batch = OverlandBatch(deviceID: nil)
        batch.append(fix)
        let feature = try #require(try features(batch).first)
        let timestamp = try #require(try properties(feature)["timestamp"] as? String)
        #expect(timestamp == "2026-05-14T09:00:00.250Z")
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(parser.date(from: timestamp) == Date(timeIntervalSince1970: 1_778_749_200.25))
    }

    /// A value the fix lacks is left out, never 0 or the app's -1; no device id leaves
    /// `device_id` out (PhoneTrack then names the device from its URL, chooseDeviceName).
    @Test func missingValuesAreLeftOut() throws {
        var batch = OverlandBatch(deviceID: nil)
        batch.append(Location(time: Date(timeIntervalSince1970: 10), mode: .twoD, lat: 1, lon: 2, source: .gpsd))
        #expect(Set(try properties(try #require(try features(batch).first)).keys) == ["timestamp"])
    }

    /// A fix without a time or a position is not added: Dawarich skips a feature without
    /// geometry or timestamp (params.rb line 15), so it would be lost anyway.
    @Test func fixesWithoutTimeOrPositionAreNotAdded() throws {
        var batch = OverlandBatch(deviceID: "van")
        let withoutTime = batch.append(Location(mode: .threeD, lat: 1, lon: 2, source: .gpsd))
        let withoutPosition = batch.append(Location(time: Date(), mode: .noFix, source: .gpsd))
        #expect(!withoutTime && !withoutPosition)
        #expect(batch.count == 0)
        #expect(String(decoding: batch.body, as: UTF8.self) == #"{"locations":[]}"#)
    }

    /// The features keep the order in which they were added (one per fix, oldest first).
    @Test func orderIsKept() throws {
        var batch = OverlandBatch(deviceID: "van")
        for second in 0..<3 {
            var fix = self.fix
            fix.time = Date(timeIntervalSince1970: 1_000 + Double(second))
            fix.lat = Double(second)
            batch.append(fix)
        }
        #expect(batch.count == 3)
        let latitudes = try features(batch).map {
            (($0["geometry"] as? [String: Any])?["coordinates"] as? [Double])?[1]
        }
        #expect(latitudes == [0, 1, 2])
    }

    /// Delivered only on `{"result":"ok"}` (Overland-iOS GLManager.m sendQueueNow; Dawarich
    /// batches_controller.rb line 10; PhoneTrack LogController.php line 1604); Dawarich's
    /// failure is `{"error":"Batch creation failed"}` (line 14).
    @Test func onlyResultOkAcknowledges() {
        #expect(OverlandBatch.isAcknowledgement(Array(#"{"result":"ok"}"#.utf8)))
        #expect(OverlandBatch.isAcknowledgement(Array(#"{"result": "ok", "geocode": null}"#.utf8)))
        #expect(!OverlandBatch.isAcknowledgement(Array(#"{"error":"Batch creation failed"}"#.utf8)))
        #expect(!OverlandBatch.isAcknowledgement(Array(#"{"result":"error"}"#.utf8)))
        #expect(!OverlandBatch.isAcknowledgement(Array("[]".utf8)))
        #expect(!OverlandBatch.isAcknowledgement([]))
    }
}
