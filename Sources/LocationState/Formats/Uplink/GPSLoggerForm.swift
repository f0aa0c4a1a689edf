import Foundation
import LocationState

/// A fix as the form body of a GPSLogger request: what Home Assistant's `gpslogger`
/// webhook reads (the body the GPSLogger app's custom URL sends with Home Assistant's
/// documented settings).
///
/// The request is a POST with an `application/x-www-form-urlencoded` body, one fix per
/// request. Home Assistant reads the body only (`request.post()`) and checks it against a
/// schema that refuses any key it does not name (422 "extra keys not allowed"), so only
/// these fields are sent, in the names and units the GPSLogger app sends them:
/// `latitude`, `longitude` (degrees; required); `device` (required; Home Assistant drops
/// its `-`s); `accuracy` (metres, from `eph`); `speed` (**metres per second**, the app's
/// `%SPD`); `direction` (degrees, the course); `altitude` (metres above mean sea level,
/// above the ellipsoid only when that is unknown, as in ``OwnTracksLocation``); and
/// `provider`, the fix's source (`gpsd`, `replay`, `simulated`, `restored`), so that a
/// fix that is not live is never taken for one, as the OwnTracks payload's `source`.
/// Not sent: the time (the schema has no field for it: Home Assistant takes the arrival),
/// `battery` (a GNSS receiver has no battery level; Home Assistant shows -1) and
/// `activity`. A value the fix does not have is left out, never sent as 0; Home Assistant
/// then shows its defaults (an accuracy of 200 m).
public struct GPSLoggerForm: Sendable, Hashable {
    /// The fields in order, names and values not yet percent-encoded.
    public let items: [URLQueryItem]

    /// The form for `location` from the device `deviceID`, or nil when the fix has no
    /// finite position or no time (not a position a server can show as current).
    public init?(_ location: Location, deviceID: String) {
        guard let lat = location.lat, let lon = location.lon, lat.isFinite, lon.isFinite, location.time != nil
        else { return nil }
        var items = [
            URLQueryItem(name: "latitude", value: URLFormEncoding.decimal(lat, TPVPrecision.degrees)),
            URLQueryItem(name: "longitude", value: URLFormEncoding.decimal(lon, TPVPrecision.degrees)),
            URLQueryItem(name: "device", value: deviceID),
        ]
        func add(_ name: String, _ value: Double?, _ decimals: Int) {
            if let value, value.isFinite {
                items.append(URLQueryItem(name: name, value: URLFormEncoding.decimal(value, decimals)))
            }
        }
        add("accuracy", location.eph, TPVPrecision.metres)
        add("speed", location.speed, TPVPrecision.metres)
        add("direction", location.track, TPVPrecision.course)
        add("altitude", location.altMSL ?? location.altHAE, TPVPrecision.metres)
        items.append(URLQueryItem(name: "provider", value: location.source.rawValue))
        self.items = items
    }

    /// The request's body, percent-encoded (``URLFormEncoding``).
    public var body: [UInt8] { Array(URLFormEncoding.encode(items).utf8) }
}
