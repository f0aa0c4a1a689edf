import Foundation
import LocationState

/// Fixes as the body of an Overland request: `{"locations":[…]}`, the batches the Overland
/// app posts and Dawarich (`/api/v1/overland/batches`), PhoneTrack (`log/overland`) and
/// Reitti (`/api/v1/ingest/overland`) read.
///
/// Each fix is a GeoJSON Point feature, coordinates `[lon, lat]` (GeoJSON's order, which
/// Dawarich and PhoneTrack read), with the properties in the Overland app's names and
/// units: `timestamp` (ISO 8601 UTC with milliseconds: a string, which Dawarich parses
/// and Reitti needs with a `Z` or `±hh:mm` offset), `altitude` (metres above mean sea
/// level, above the ellipsoid only when that is unknown), `speed` (m/s), `course`
/// (degrees), `horizontal_accuracy` (metres, from `eph`; Reitti drops a point without
/// it), `vertical_accuracy` (from `epv`), `speed_accuracy` (from `eps`), `motion` and
/// `device_id`. A value the fix does not have is left out, never sent as 0 or as the
/// app's -1. A batch is delivered only when the answer is ``isAcknowledgement(_:)``.
public struct OverlandBatch: Sendable, Hashable {
    /// The `device_id` of every feature; nil leaves it out (PhoneTrack then names the
    /// device from the URL, and Dawarich keeps no tracker id).
    public let deviceID: String?
    /// How many fixes the batch holds.
    public private(set) var count = 0
    /// The features written so far, separated by commas.
    private var features: [UInt8] = []

    public init(deviceID: String?) {
        self.deviceID = deviceID
    }

    /// Adds `location` as the next feature; false (and nothing added) when the fix has no
    /// finite position or no time, which no Overland server would keep.
    ///
    /// - Parameter motion: the device's motion states for this fix (`[.stationary]` when
    ///   parked); empty leaves the property out.
    @discardableResult
    public mutating func append(_ location: Location, motion: [OverlandMotion] = []) -> Bool {
        guard let lat = location.lat, let lon = location.lon, lat.isFinite, lon.isFinite, let time = location.time
        else { return false }
        if count > 0 { features.append(UInt8(ascii: ",")) }
        // Keys and quotes (240), eight numbers (32 each), the time (24), the motion
        // states (13 each); the device id 6 bytes per byte at worst.
        let capacity = 600 + 13 * motion.count + 6 * (deviceID?.utf8.count ?? 0)
        ByteWriter.append(to: &features, capacity: capacity) { out in
            out.literal(#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#)
            out.decimal(lon, decimals: TPVPrecision.degrees)
            out.byte(UInt8(ascii: ","))
            out.decimal(lat, decimals: TPVPrecision.degrees)
            out.literal(#"]},"properties":{"timestamp":""#)
            out.iso8601(time)
            out.byte(UInt8(ascii: "\""))
            Self.number(#","altitude":"#, location.altMSL ?? location.altHAE, TPVPrecision.metres, &out)
            Self.number(#","speed":"#, location.speed, TPVPrecision.metres, &out)
            Self.number(#","course":"#, location.track, TPVPrecision.course, &out)
            Self.number(#","horizontal_accuracy":"#, location.eph, TPVPrecision.metres, &out)
            Self.number(#","vertical_accuracy":"#, location.epv, TPVPrecision.metres, &out)
            Self.number(#","speed_accuracy":"#, location.eps, TPVPrecision.metres, &out)
            if !motion.isEmpty {
                out.literal(#","motion":["#)
                for (index, state) in motion.enumerated() {
                    if index > 0 { out.byte(UInt8(ascii: ",")) }
                    out.jsonString(state.rawValue)
                }
                out.byte(UInt8(ascii: "]"))
            }
            if let deviceID {
                out.literal(#","device_id":"#)
                out.jsonString(deviceID)
            }
            out.literal("}}")
        }
        count += 1
        return true
    }

    /// The request body: `{"locations":[…]}` with the features in the order they were added.
    public var body: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(features.count + 16)
        DecimalFormatting.appendLiteral(#"{"locations":["#, to: &out)
        out.append(contentsOf: features)
        DecimalFormatting.appendLiteral("]}", to: &out)
        return out
    }

    /// Whether an answer's body acknowledges the batch: a JSON object whose `result` is
    /// `"ok"`, the one answer on which the Overland app deletes the points it sent.
    /// (Dawarich answers it with 201, PhoneTrack and Reitti with 200; Reitti also when it
    /// dropped points it could not read.)
    public static func isAcknowledgement(_ body: [UInt8]) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return false }
        return object["result"] as? String == "ok"
    }

    /// Writes `,"key":value` for a finite value.
    private static func number(_ key: StaticString, _ value: Double?, _ decimals: Int, _ out: inout ByteWriter) {
        guard let value, value.isFinite else { return }
        out.literal(key)
        out.decimal(value, decimals: decimals)
    }
}
