import Foundation
import LocationState

/// A fix as the query of an OsmAnd request: Traccar's OsmAnd protocol (port 5055), which
/// Home Assistant's `traccar` webhook and PhoneTrack's `log/traccar` route read too.
///
/// The request is a POST with these fields in the URL's query and an empty body: Traccar
/// reads the query first and takes a JSON content type for another format; Home Assistant
/// reads only the query and answers 405 to a GET. One fix per request.
///
/// Fields, in the names and units Traccar's `OsmAndProtocolDecoder` reads: `id`;
/// `timestamp`, integer Unix seconds of the fix (rounded down: Traccar closes the
/// connection on a decimal, Home Assistant answers 422; milliseconds from 2038 on, as
/// Traccar reads them then); `lat`, `lon` (degrees);
/// `speed` in **knots** (Traccar's default unit; PhoneTrack converts it back to m/s);
/// `bearing` (degrees); `altitude` (metres above mean sea level, above the ellipsoid only
/// when that is unknown, as in ``OwnTracksLocation``); `accuracy` (metres, from `eph`);
/// `hdop`; `sat` (satellites used) and `motion`, two of Traccar's own position attributes,
/// which its decoder stores under the key they are sent with; and `valid` (a 2D or 3D fix).
/// Numbers are plain decimals with the precision of locationd's JSON. A value the fix does
/// not have is left out, never sent as 0.
public struct OsmAndQuery: Sendable, Hashable {
    /// The fields in order, names and values not yet percent-encoded.
    public let items: [URLQueryItem]

    /// The query for `location` from the device `deviceID`, or nil when the fix has no
    /// finite position or no time (Traccar would store it at the last known position and
    /// the server's clock).
    ///
    /// - Parameter moving: whether the device is moving, from locationd's motion state;
    ///   sent as Traccar's `motion` attribute, which then replaces Traccar's own guess from
    ///   the speed. Nil leaves it out.
    public init?(_ location: Location, deviceID: String, moving: Bool? = nil) {
        guard let lat = location.lat, let lon = location.lon, lat.isFinite, lon.isFinite,
            let time = location.time, let timestamp = Self.timestamp(time)
        else { return nil }
        var items = [
            URLQueryItem(name: "id", value: deviceID),
            URLQueryItem(name: "timestamp", value: String(timestamp)),
            URLQueryItem(name: "lat", value: URLFormEncoding.decimal(lat, TPVPrecision.degrees)),
            URLQueryItem(name: "lon", value: URLFormEncoding.decimal(lon, TPVPrecision.degrees)),
        ]
        func add(_ name: String, _ value: Double?, _ decimals: Int) {
            if let value, value.isFinite {
                items.append(URLQueryItem(name: name, value: URLFormEncoding.decimal(value, decimals)))
            }
        }
        add("speed", location.speed.map(Self.knots), TPVPrecision.metres)
        add("bearing", location.track, TPVPrecision.course)
        add("altitude", location.altMSL ?? location.altHAE, TPVPrecision.metres)
        add("accuracy", location.eph, TPVPrecision.metres)
        add("hdop", location.hdop, TPVPrecision.dilution)
        if let satellites = location.satellitesUsed {
            items.append(URLQueryItem(name: "sat", value: String(satellites)))
        }
        items.append(URLQueryItem(name: "valid", value: String(location.mode.hasPosition)))
        if let moving { items.append(URLQueryItem(name: "motion", value: String(moving))) }
        self.items = items
    }

    /// The query as it goes into the URL after the `?`, percent-encoded
    /// (``URLFormEncoding``).
    public var percentEncoded: String { URLFormEncoding.encode(items) }

    /// The `timestamp` value, nil for a time no integer can say: whole seconds, rounded down,
    /// but milliseconds from 2038-01-19 03:14:07 UTC on, since Traccar reads an integer of
    /// 2^31 - 1 or more as milliseconds (PhoneTrack reads one above 10^10 as milliseconds
    /// too; Home Assistant only checks that it is an integer).
    private static func timestamp(_ time: Date) -> Int? {
        let seconds = time.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 9.0e12 else { return nil }
        return seconds < Double(Int32.max) ? Int(seconds) : Int((time.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// Metres per second in knots: a knot is 1852 m per hour.
    private static func knots(_ metresPerSecond: Double) -> Double { metresPerSecond * 3600 / 1852 }
}
