import Foundation

/// Location as gpsd-style TPV JSON: `{"class":"TPV","mode":3,"time":"...","lat":...}`.
///
/// Field names and units are gpsd_json(5)'s TPV, plus `satellitesUsed`, `hdop` and
/// `source`. `"class":"TPV"` comes first; absent values are left out. Precision:
/// latitude and longitude 9 decimals (0.1 mm), metres and m/s 3, course 4, HDOP 2.
/// ``appendJSON(to:)`` is the fast path (no Foundation encoder); the `Codable`
/// conformance reads gpsd's TPV objects (`gpspipe -w`), including its older `alt`.
extension Location: JSONLine {
    /// Appends the TPV object (no newline) to `out`.
    public func appendJSON(to out: inout [UInt8]) {
        // At most 790 bytes without the device: keys and quotes (205), 15 decimals (32 each), 3
        // integers (20 each) and the time (45). The device adds its key and quotes (13)
        // and 6 bytes per byte at worst. Up to 1 KiB, the buffer is on the stack.
        ByteWriter.append(to: &out, capacity: 800 + 13 + 6 * (device?.utf8.count ?? 0)) { writeJSON(to: &$0) }
    }

    /// Appends the TPV object with `"age"` (seconds, 3 decimals; left out when nil or not
    /// finite) and `"state"` as its last members: the `?LAST;` answer and `last --json`.
    public func appendJSON(to out: inout [UInt8], age: Double?, state: String) {
        appendJSONHead(to: &out)
        Location.appendJSONTail(to: &out, age: age, state: state)
        out.append(UInt8(ascii: "}"))
    }

    /// Appends the TPV object's members up to `"age"`, without its closing brace: the
    /// part of ``appendJSON(to:age:state:)`` that stays the same for as long as the fix does.
    package func appendJSONHead(to out: inout [UInt8]) {
        ByteWriter.append(to: &out, capacity: 800 + 13 + 6 * (device?.utf8.count ?? 0)) {
            writeJSON(to: &$0, closed: false)
        }
    }

    /// Appends the members after ``appendJSONHead(to:)``: `,"age":…` (left out when nil or
    /// not finite) and `,"state":…`, without a closing brace.
    package static func appendJSONTail(to out: inout [UInt8], age: Double?, state: String) {
        ByteWriter.append(to: &out, capacity: 40 + 6 * state.utf8.count) { out in
            if let age { Location.write(#","age":"#, age, 3, &out) }
            out.literal(#","state":"#)
            out.jsonString(state)
        }
    }

    private func writeJSON(to out: inout ByteWriter, closed: Bool = true) {
        out.literal(#"{"class":"TPV""#)
        if let device {
            out.literal(#","device":"#)
            out.jsonString(device)
        }
        out.literal(#","mode":"#)
        out.integer(mode.rawValue)
        if let time {
            out.literal(#","time":""#)
            out.iso8601(time)
            out.byte(UInt8(ascii: "\""))
        }
        if let lat { Location.write(#","lat":"#, lat, TPVPrecision.degrees, &out) }
        if let lon { Location.write(#","lon":"#, lon, TPVPrecision.degrees, &out) }
        if let altHAE { Location.write(#","altHAE":"#, altHAE, TPVPrecision.metres, &out) }
        if let altMSL { Location.write(#","altMSL":"#, altMSL, TPVPrecision.metres, &out) }
        if let epx { Location.write(#","epx":"#, epx, TPVPrecision.metres, &out) }
        if let epy { Location.write(#","epy":"#, epy, TPVPrecision.metres, &out) }
        if let epv { Location.write(#","epv":"#, epv, TPVPrecision.metres, &out) }
        if let track { Location.write(#","track":"#, track, TPVPrecision.course, &out) }
        if let speed { Location.write(#","speed":"#, speed, TPVPrecision.metres, &out) }
        if let climb { Location.write(#","climb":"#, climb, TPVPrecision.metres, &out) }
        if let eps { Location.write(#","eps":"#, eps, TPVPrecision.metres, &out) }
        if let epc { Location.write(#","epc":"#, epc, TPVPrecision.metres, &out) }
        if let eph { Location.write(#","eph":"#, eph, TPVPrecision.metres, &out) }
        if let status {
            out.literal(#","status":"#)
            out.integer(status)
        }
        if let geoidSep { Location.write(#","geoidSep":"#, geoidSep, TPVPrecision.metres, &out) }
        if let satellitesUsed {
            out.literal(#","satellitesUsed":"#)
            out.integer(satellitesUsed)
        }
        if let hdop { Location.write(#","hdop":"#, hdop, TPVPrecision.dilution, &out) }
        switch source {
        case .gpsd: out.literal(#","source":"gpsd""#)
        case .replay: out.literal(#","source":"replay""#)
        case .simulated: out.literal(#","source":"simulated""#)
        case .restored: out.literal(#","source":"restored""#)
        }
        if closed { out.byte(UInt8(ascii: "}")) }
    }

    /// Writes `,"name":value` for a finite value.
    @inline(__always)
    private static func write(_ key: StaticString, _ value: Double, _ decimals: Int, _ out: inout ByteWriter) {
        guard value.isFinite else { return }
        out.literal(key)
        out.decimal(value, decimals: decimals)
    }
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
        if let time, !UTCCalendar.canWrite(time) {
            throw DecodingError.dataCorruptedError(
                forKey: .time, in: container, debugDescription: "a time outside the years 0000 to 9999")
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

    /// Encodes the same TPV object as ``appendJSON(to:)``, through `Encoder`: the same keys
    /// in the same order, each number rounded as the writer rounds it, non-finite numbers
    /// left out. (`LocationJSONTests` compares the two over many generated fixes.)
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try encodeTPV(into: &container)
    }

    /// Encodes the TPV object's members into `container`, for a caller that adds its own
    /// after them (as `?LAST;` adds `age` and `state`).
    public func encodeTPV(into container: inout KeyedEncodingContainer<JSONKey>) throws {
        func number(_ value: Double?, _ key: JSONKey, _ decimals: Int) throws {
            guard let value, value.isFinite else { return }
            try container.encode(ByteWriter.rounded(value, decimals: decimals), forKey: key)
        }
        try container.encode("TPV", forKey: "class")
        try container.encodeIfPresent(device, forKey: "device")
        try container.encode(mode.rawValue, forKey: "mode")
        try container.encodeIfPresent(time.map(UTCCalendar.iso8601), forKey: "time")
        try number(lat, "lat", TPVPrecision.degrees)
        try number(lon, "lon", TPVPrecision.degrees)
        try number(altHAE, "altHAE", TPVPrecision.metres)
        try number(altMSL, "altMSL", TPVPrecision.metres)
        try number(epx, "epx", TPVPrecision.metres)
        try number(epy, "epy", TPVPrecision.metres)
        try number(epv, "epv", TPVPrecision.metres)
        try number(track, "track", TPVPrecision.course)
        try number(speed, "speed", TPVPrecision.metres)
        try number(climb, "climb", TPVPrecision.metres)
        try number(eps, "eps", TPVPrecision.metres)
        try number(epc, "epc", TPVPrecision.metres)
        try number(eph, "eph", TPVPrecision.metres)
        try container.encodeIfPresent(status, forKey: "status")
        try number(geoidSep, "geoidSep", TPVPrecision.metres)
        try container.encodeIfPresent(satellitesUsed, forKey: "satellitesUsed")
        try number(hdop, "hdop", TPVPrecision.dilution)
        try container.encode(source, forKey: "source")
    }

    /// A member name of a TPV object.
    public struct JSONKey: CodingKey, ExpressibleByStringLiteral, Sendable {
        public var stringValue: String
        public var intValue: Int? { nil }
        public init(stringValue: String) { self.stringValue = stringValue }
        public init?(intValue: Int) { nil }
        public init(stringLiteral value: String) { stringValue = value }
    }

}

/// How many decimals each kind of TPV number has in locationd's JSON, for both encoders.
package enum TPVPrecision {
    /// Latitude and longitude: 9 decimals, 0.1 mm.
    @inline(__always) package static var degrees: Int { 9 }
    /// Metres and metres per second: 3 decimals.
    @inline(__always) package static var metres: Int { 3 }
    /// Course over ground: 4 decimals.
    @inline(__always) package static var course: Int { 4 }
    /// Dilution of precision: 2 decimals.
    @inline(__always) package static var dilution: Int { 2 }
}
