import Foundation

/// Location as gpsd-style TPV JSON: `{"class":"TPV","mode":3,"time":"...","lat":...}`.
///
/// Field names and units are gpsd_json(5)'s TPV, plus `satellitesUsed`, `hdop` and
/// `source`. `"class":"TPV"` comes first; absent values are left out. Precision:
/// latitude and longitude 9 decimals (0.1 mm), metres and m/s 3, course 4, HDOP 2.
/// ``appendJSON(to:)`` is the fast path (no Foundation encoder); the `Codable`
/// conformance reads gpsd's TPV objects (`gpspipe -w`), including its older `alt`.
extension Location {
    /// Appends the TPV object (no newline) to `out`.
    public func appendJSON(to out: inout [UInt8]) {
        DecimalFormatting.appendLiteral(#"{"class":"TPV""#, to: &out)
        if let device {
            DecimalFormatting.appendLiteral(#","device":"#, to: &out)
            Location.appendJSONString(device, to: &out)
        }
        DecimalFormatting.appendLiteral(#","mode":"#, to: &out)
        DecimalFormatting.appendInteger(mode.rawValue, to: &out)
        if let time {
            DecimalFormatting.appendLiteral(#","time":""#, to: &out)
            UTCCalendar.appendISO8601(time, to: &out)
            out.append(UInt8(ascii: "\""))
        }
        Location.append("lat", lat, 9, &out)
        Location.append("lon", lon, 9, &out)
        Location.append("altHAE", altHAE, 3, &out)
        Location.append("altMSL", altMSL, 3, &out)
        Location.append("epx", epx, 3, &out)
        Location.append("epy", epy, 3, &out)
        Location.append("epv", epv, 3, &out)
        Location.append("track", track, 4, &out)
        Location.append("speed", speed, 3, &out)
        Location.append("climb", climb, 3, &out)
        Location.append("eps", eps, 3, &out)
        Location.append("epc", epc, 3, &out)
        Location.append("eph", eph, 3, &out)
        if let status {
            DecimalFormatting.appendLiteral(#","status":"#, to: &out)
            DecimalFormatting.appendInteger(status, to: &out)
        }
        Location.append("geoidSep", geoidSep, 3, &out)
        if let satellitesUsed {
            DecimalFormatting.appendLiteral(#","satellitesUsed":"#, to: &out)
            DecimalFormatting.appendInteger(satellitesUsed, to: &out)
        }
        Location.append("hdop", hdop, 2, &out)
        DecimalFormatting.appendLiteral(#","source":""#, to: &out)
        switch source {
        case .gpsd: DecimalFormatting.appendLiteral("gpsd", to: &out)
        case .replay: DecimalFormatting.appendLiteral("replay", to: &out)
        case .simulated: DecimalFormatting.appendLiteral("simulated", to: &out)
        case .restored: DecimalFormatting.appendLiteral("restored", to: &out)
        }
        DecimalFormatting.appendLiteral(#""}"#, to: &out)
    }

    /// The TPV object as a String.
    public var jsonString: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        appendJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func append(_ name: StaticString, _ value: Double?, _ decimals: Int, _ out: inout [UInt8]) {
        guard let value, value.isFinite else { return }
        DecimalFormatting.appendLiteral(#",""#, to: &out)
        out.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        DecimalFormatting.appendLiteral(#"":"#, to: &out)
        DecimalFormatting.append(value, decimals: decimals, to: &out)
    }

    /// Appends `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    static func appendJSONString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.append(UInt8(ascii: "\\"))
                out.append(byte)
            case 0..<32:
                DecimalFormatting.appendLiteral("\\u00", to: &out)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static let hex = Array("0123456789abcdef".utf8)
}

extension Location: Codable {
    private enum CodingKeys: String, CodingKey {
        case `class`, device, mode, time, lat, lon, altHAE, altMSL, alt, epx, epy, epv, track, speed, climb
        case eps, epc, eph, status, geoidSep, satellitesUsed, hdop, source
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let kind = try container.decodeIfPresent(String.self, forKey: .class), kind != "TPV" {
            throw DecodingError.dataCorruptedError(
                forKey: .class, in: container, debugDescription: "not a TPV object: \(kind)")
        }
        var time: Date?
        if let text = try? container.decodeIfPresent(String.self, forKey: .time) {
            guard let parsed = UTCCalendar.parseISO8601(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .time, in: container, debugDescription: "not an ISO 8601 UTC time: \(text)")
            }
            time = parsed
        } else if let seconds = try container.decodeIfPresent(Double.self, forKey: .time) {
            time = Date(timeIntervalSince1970: seconds)
        }
        let modeNumber = try container.decodeIfPresent(Int.self, forKey: .mode) ?? 0
        func number(_ key: CodingKeys) throws -> Double? { try container.decodeIfPresent(Double.self, forKey: key) }
        self.init(
            time: time,
            mode: FixMode(rawValue: modeNumber) ?? .unknown,
            status: try container.decodeIfPresent(Int.self, forKey: .status),
            lat: try number(.lat),
            lon: try number(.lon),
            altHAE: try number(.altHAE),
            altMSL: try number(.altMSL) ?? number(.alt),
            speed: try number(.speed),
            track: try number(.track),
            climb: try number(.climb),
            eph: try number(.eph),
            epv: try number(.epv),
            eps: try number(.eps),
            epc: try number(.epc),
            epx: try number(.epx),
            epy: try number(.epy),
            geoidSep: try number(.geoidSep),
            satellitesUsed: try container.decodeIfPresent(Int.self, forKey: .satellitesUsed),
            hdop: try number(.hdop),
            source: try container.decodeIfPresent(FixSource.self, forKey: .source) ?? .gpsd,
            device: try container.decodeIfPresent(String.self, forKey: .device))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("TPV", forKey: .class)
        try container.encodeIfPresent(device, forKey: .device)
        try container.encode(mode.rawValue, forKey: .mode)
        try container.encodeIfPresent(time.map(UTCCalendar.iso8601), forKey: .time)
        try container.encodeIfPresent(lat, forKey: .lat)
        try container.encodeIfPresent(lon, forKey: .lon)
        try container.encodeIfPresent(altHAE, forKey: .altHAE)
        try container.encodeIfPresent(altMSL, forKey: .altMSL)
        try container.encodeIfPresent(epx, forKey: .epx)
        try container.encodeIfPresent(epy, forKey: .epy)
        try container.encodeIfPresent(epv, forKey: .epv)
        try container.encodeIfPresent(track, forKey: .track)
        try container.encodeIfPresent(speed, forKey: .speed)
        try container.encodeIfPresent(climb, forKey: .climb)
        try container.encodeIfPresent(eps, forKey: .eps)
        try container.encodeIfPresent(epc, forKey: .epc)
        try container.encodeIfPresent(eph, forKey: .eph)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(geoidSep, forKey: .geoidSep)
        try container.encodeIfPresent(satellitesUsed, forKey: .satellitesUsed)
        try container.encodeIfPresent(hdop, forKey: .hdop)
        try container.encode(source, forKey: .source)
    }
}
