import Foundation

/// Traccar's OwnTracks protocol (port 5144) as its decoder reads a request, rule by rule.
///
/// Cited from traccar/traccar @ 9e5c458a, `src/main/java/org/traccar/` + the path; "decoder"
/// is `protocol/OwnTracksProtocolDecoder.java`. Every JSON-P getter that meets a missing
/// member or a value of another type throws (NullPointerException, ClassCastException),
/// and Traccar then closes the connection without an answer
/// (handler/network/MainEventHandler.java:76-82).
enum TraccarOwnTracksRules {
    private struct Unreadable: Error {
        let why: String
    }

    static func decide(_ request: RecordedRequest, devices: Set<String>, context: inout UplinkRuleContext)
        -> UplinkDecision
    {
        do {
            return try decode(request, devices: devices, context: &context)
        } catch {
            return UplinkDecision(.closeWithoutAnswer, dropped: error.why)
        }
    }

    private static func decode(_ request: RecordedRequest, devices: Set<String>, context: inout UplinkRuleContext)
        throws(Unreadable) -> UplinkDecision
    {
        // Any method and path; the body read as US-ASCII into a JSON object (decoder:45-47).
        let ascii = request.body.map { $0 < 0x80 ? $0 : UInt8(ascii: "?") }
        guard let root = JSONValue(parsing: ascii), root.members != nil else {
            throw Unreadable(why: "the body is not a JSON object")
        }
        // `_type` other than "location": 200, nothing stored (decoder:49-52).
        guard try string(root, "_type") == "location" else {
            return UplinkDecision(.text(200), dropped: "not a location")
        }
        // The device's unique id: `topic` if present, else `tid` (decoder:54-59).
        let uniqueID = try root["topic"] != nil ? string(root, "topic") : root["tid"] != nil ? string(root, "tid") : nil
        // No id: the session already on this connection, if any; an unknown id: 400
        // (decoder:61-65; session/ConnectionManager.java:121-150).
        let device: String
        if let uniqueID {
            guard devices.contains(uniqueID) else {
                return UplinkDecision(.text(400), dropped: "unknown device \(uniqueID)")
            }
            device = uniqueID
        } else if let known = context.connectionDevice {
            device = known
        } else {
            return UplinkDecision(.text(400), dropped: "no topic and no tid")
        }
        context.connectionDevice = device
        // `tst` seconds via getJsonNumber().longValue() (decoder:70).
        let tst = try number(root, "tst").rounded(.towardZero)
        if root["sent"] != nil { _ = try number(root, "sent") }
        // `lat`, `lon` via getJsonNumber().doubleValue() (decoder:77-78).
        let latitude = try number(root, "lat")
        let longitude = try number(root, "lon")
        var fix = StoredFix(
            device: device, latitude: latitude, longitude: longitude, time: Date(timeIntervalSince1970: tst))
        // `vel` getInt, km/h to knots by 0.539957 (decoder:80-82; helper/UnitsConverter.java:20,31-33);
        // stored in knots, given back here in m/s.
        if root["vel"] != nil {
            let knots = try integer(root, "vel") * 0.539957
            fix.speedMetersPerSecond = knots / TraccarOsmAndRules.knotsPerMetrePerSecond
        }
        // `alt`, `cog`, `acc` getInt (decoder:83-91).
        if root["alt"] != nil { fix.altitude = try integer(root, "alt") }
        if root["cog"] != nil { fix.course = try integer(root, "cog") }
        if root["acc"] != nil { fix.accuracy = try integer(root, "acc") }
        // `t` getString, `batt`, `rpm` getInt, `ign`, `motion` getBoolean, the numbers as
        // getJsonNumber (decoder:92-126).
        if root["t"] != nil { _ = try string(root, "t") }
        for key in ["batt", "rpm"] where root[key] != nil { _ = try integer(root, key) }
        for key in ["uext", "ubatt", "odometer", "hmc"] where root[key] != nil { _ = try number(root, key) }
        for key in ["vin", "name"] where root[key] != nil { _ = try string(root, key) }
        for key in ["ign", "motion"] where root[key] != nil {
            guard case .bool = root[key] else { throw Unreadable(why: "\(key) is not a JSON boolean") }
        }
        fix.fields = root.scalarFields
        // 200, empty body (decoder:142).
        return UplinkDecision(.text(200), kept: [fix])
    }

    /// JsonObject.getString: a JSON string, else it throws.
    private static func string(_ root: JSONValue, _ key: String) throws(Unreadable) -> String {
        guard let text = root[key]?.string else { throw Unreadable(why: "\(key) is not a JSON string") }
        return text
    }

    /// JsonObject.getJsonNumber: a JSON number, else it throws.
    private static func number(_ root: JSONValue, _ key: String) throws(Unreadable) -> Double {
        guard let value = root[key]?.double else { throw Unreadable(why: "\(key) is missing or not a JSON number") }
        return value
    }

    /// JsonObject.getInt: a JSON number, its fraction cut off (JsonNumber.intValue).
    private static func integer(_ root: JSONValue, _ key: String) throws(Unreadable) -> Double {
        try number(root, key).rounded(.towardZero)
    }
}
