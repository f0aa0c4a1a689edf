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
        // At most 790 bytes without the device: keys and quotes (205), 15 decimals (32 each), 3
        // integers (20 each) and the time (45). The device adds its key and quotes (13)
        // and 6 bytes per byte at worst. Up to 1 KiB, the buffer is on the stack.
        ByteWriter.append(to: &out, capacity: 800 + 13 + 6 * (device?.utf8.count ?? 0)) { writeJSON(to: &$0) }
    }

    private func writeJSON(to out: inout ByteWriter) {
        out.literal(#"{"class":"TPV""#)
        if let device {
            out.literal(#","device":"#)
            Location.writeJSONString(device, to: &out)
        }
        out.literal(#","mode":"#)
        out.integer(mode.rawValue)
        if let time {
            out.literal(#","time":""#)
            out.iso8601(time)
            out.byte(UInt8(ascii: "\""))
        }
        if let lat { Location.write(#","lat":"#, lat, 9, &out) }
        if let lon { Location.write(#","lon":"#, lon, 9, &out) }
        if let altHAE { Location.write(#","altHAE":"#, altHAE, 3, &out) }
        if let altMSL { Location.write(#","altMSL":"#, altMSL, 3, &out) }
        if let epx { Location.write(#","epx":"#, epx, 3, &out) }
        if let epy { Location.write(#","epy":"#, epy, 3, &out) }
        if let epv { Location.write(#","epv":"#, epv, 3, &out) }
        if let track { Location.write(#","track":"#, track, 4, &out) }
        if let speed { Location.write(#","speed":"#, speed, 3, &out) }
        if let climb { Location.write(#","climb":"#, climb, 3, &out) }
        if let eps { Location.write(#","eps":"#, eps, 3, &out) }
        if let epc { Location.write(#","epc":"#, epc, 3, &out) }
        if let eph { Location.write(#","eph":"#, eph, 3, &out) }
        if let status {
            out.literal(#","status":"#)
            out.integer(status)
        }
        if let geoidSep { Location.write(#","geoidSep":"#, geoidSep, 3, &out) }
        if let satellitesUsed {
            out.literal(#","satellitesUsed":"#)
            out.integer(satellitesUsed)
        }
        if let hdop { Location.write(#","hdop":"#, hdop, 2, &out) }
        switch source {
        case .gpsd: out.literal(#","source":"gpsd"}"#)
        case .replay: out.literal(#","source":"replay"}"#)
        case .simulated: out.literal(#","source":"simulated"}"#)
        case .restored: out.literal(#","source":"restored"}"#)
        }
    }

    /// The TPV object as a String.
    public var jsonString: String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        appendJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes `,"name":value` for a finite value.
    @inline(__always)
    private static func write(_ key: StaticString, _ value: Double, _ decimals: Int, _ out: inout ByteWriter) {
        guard value.isFinite else { return }
        out.literal(key)
        out.decimal(value, decimals: decimals)
    }

    /// Writes `text` as a JSON string literal, escaping quotes, backslashes and control characters.
    static func writeJSONString(_ text: String, to out: inout ByteWriter) {
        out.byte(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                out.byte(UInt8(ascii: "\\"))
                out.byte(byte)
            case 0..<32:
                out.literal("\\u00")
                out.byte(hex[Int(byte >> 4)])
                out.byte(hex[Int(byte & 0xF)])
            default:
                out.byte(byte)
            }
        }
        out.byte(UInt8(ascii: "\""))
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
