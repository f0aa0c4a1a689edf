import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import LocationFormats

/// The fixes and requests the stand-in tests send: what locationd's encoders write.
enum StandInFixtures {
    /// A fix at 12 m/s (23.326 kn, 43 km/h), with every value the encoders send.
    static let fix = Location(
        time: Date(timeIntervalSince1970: 1_778_749_200.75), mode: .threeD, lat: 52.514_512_345_6,
        lon: -13.350_098_765_4, altMSL: 35.6, speed: 12, track: 271.25, eph: 4.4, epv: 7.5, satellitesUsed: 9,
        hdop: 0.87, source: .gpsd)

    /// The fix's time as the servers keep it: whole seconds.
    static let seconds = Date(timeIntervalSince1970: 1_778_749_200)

    static let identity = OwnTracksHTTPIdentity(user: "Anna", device: "van")!

    /// `fix` (or `location`) as the OsmAnd query of device `id`.
    static func osmAnd(_ location: Location = fix, id: String = "van") -> String {
        OsmAndQuery(location, deviceID: id, moving: true)!.percentEncoded
    }

    /// `fix` (or `location`) as the OwnTracks JSON, with the identity's topic unless `topic` is false.
    static func ownTracks(_ location: Location = fix, topic: Bool = true) -> [UInt8] {
        OwnTracksLocation(
            location, trackerID: "an", createdAt: Date(timeIntervalSince1970: 1_778_749_201),
            topic: topic ? identity.topic : nil
        ).payload!
    }

    /// The identity's `X-Limit-U`/`X-Limit-D` headers and the JSON content type.
    static var ownTracksHeaders: [(String, String)] {
        identity.headerFields.map { ($0.name, $0.value) } + [("Content-Type", "application/json")]
    }

    /// `fix` (or `location`) as the GPSLogger form of device `device`.
    static func gpsLogger(_ location: Location = fix, device: String = "van") -> [UInt8] {
        GPSLoggerForm(location, deviceID: device)!.body
    }

    /// The GPSLogger form's content type.
    static let formHeaders = [("Content-Type", "application/x-www-form-urlencoded")]

    /// An Overland batch of `locations` from device "van".
    static func overland(_ locations: [Location]) -> [UInt8] {
        var batch = OverlandBatch(deviceID: "van")
        for location in locations { batch.append(location, motion: [.driving]) }
        return batch.body
    }

    /// `fix` moved by `seconds` and `metres` north (about).
    static func fix(after seconds: Double, north metres: Double = 0) -> Location {
        var location = fix
        location.time = fix.time!.addingTimeInterval(seconds)
        location.lat = fix.lat! + metres / 111_000
        return location
    }
}

/// Whether `a` and `b` differ by at most `tolerance`.
func isClose(_ a: Double?, _ b: Double, _ tolerance: Double = 1e-6) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}

/// Sends with a fresh client and expects the connection to end without a whole answer.
func expectNoAnswer(
    _ url: String, method: String = "POST", headers: [(String, String)] = [], body: [UInt8] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    try await withUplinkTestClient { client throws in
        await #expect(throws: (any Error).self, sourceLocation: sourceLocation) {
            try await client.send(url, method: method, headers: headers, body: body)
        }
    }
}
