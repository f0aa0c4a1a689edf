import Foundation

/// The OwnTracks Recorder's HTTP mode (`/pub`) as it reads a request, rule by rule.
///
/// Cited from owntracks/recorder @ ae2fd296 (`http.c`, `recorder.c`, `util.c`). The
/// Recorder has no refusals: `/pub` always answers 200 with a JSON array (friends and
/// cards; none here), whether it kept the message or dropped it (http.c:665-709, 369-392).
enum RecorderRules {
    static func decide(_ request: RecordedRequest) -> UplinkDecision {
        // Only `POST /pub` publishes (http.c:1449-1452); the stand-in answers 404 to any
        // other request, where the real one would serve its pages and API.
        guard request.method == "POST", request.path == "/pub" else { return UplinkDecision(.text(404)) }
        let answer = UplinkReply.json(200, "[]")
        // User and device: the header `X-Limit-U`/`X-Limit-D` over the query's `u`/`d`,
        // lowercased (http.c:80-99); defaults "owntracks" and "phone" (http.c:645-651).
        let query = QueryParameters.python(request.query)
        func field(_ name: String, default fallback: String) -> String {
            if let header = request.header("X-Limit-\(name.uppercased())") { return header.lowercased() }
            if let value = query.first(name), !value.isEmpty { return value.lowercased() }
            return fallback
        }
        let topic = "owntracks/\(field("u", default: "owntracks"))/\(field("d", default: "phone"))"
        // The topic split on "/" by strtok, empty levels skipped (util.c:234-252); fewer
        // than three levels: "Ignoring short topic" (recorder.c:791-809).
        let levels = topic.split(separator: "/")
        guard levels.count >= 3 else { return UplinkDecision(answer, dropped: "short topic \(topic)") }
        let device = "\(levels[1])/\(levels[2])"
        // An empty payload is ignored (recorder.c:775-777); one that is not JSON is kept as
        // a raw record, not a location (recorder.c:859-871).
        guard !request.body.isEmpty, let json = JSONValue(parsing: request.body), json.members != nil else {
            return UplinkDecision(answer, dropped: "not a JSON object")
        }
        // Only `_type` "location" is a fix (recorder.c:879-958).
        guard json["_type"]?.string == "location" else { return UplinkDecision(answer, dropped: "not a location") }
        // `tst`: a string through strtoul, a number truncated, anything else drops the
        // message; missing: now (recorder.c:1016-1027).
        var time: Date?
        switch json["tst"] {
        case nil: time = nil
        case .string(let text)?: time = Date(timeIntervalSince1970: Double(strtoul(text, nil, 10)))
        case .number?: time = Date(timeIntervalSince1970: (json["tst"]?.double ?? 0).rounded(.towardZero))
        default: return UplinkDecision(answer, dropped: "tst is neither a number nor a string")
        }
        // `lat`, `lon` through number(): a number, or a string by atof; else NaN, and the
        // message is dropped (recorder.c:1029-1034; util.c:659-677).
        guard let latitude = number(json["lat"]), let longitude = number(json["lon"]) else {
            return UplinkDecision(answer, dropped: "lat or lon is NaN")
        }
        var fix = StoredFix(device: device, latitude: latitude, longitude: longitude, time: time)
        // Kept in the .rec file as it came (recorder.c:1227-1238): the OwnTracks units, `vel` km/h.
        if let vel = number(json["vel"]) { fix.speedMetersPerSecond = vel / 3.6 }
        fix.accuracy = number(json["acc"])
        fix.altitude = number(json["alt"])
        fix.course = number(json["cog"])
        fix.fields = json.scalarFields
        return UplinkDecision(answer, kept: [fix])
    }

    /// util.c `number()`: a JSON number, or a string read by atof; nil (NaN) otherwise.
    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .number?: value?.double
        case .string(let text)?: ServerNumbers.cAtof(text)
        default: nil
        }
    }
}
