import Foundation

/// Reitti's Overland endpoint as Spring, its token filters and its controller read a
/// request, rule by rule.
///
/// Cited from dedicatedcode/reitti @ 833483af, `src/main/java/com/dedicatedcode/reitti/` +
/// the path; "controller" is `controller/api/ingestion/overland/OverlandIngestionApiController.java`,
/// "request" `dto/OverlandLocationRequest.java`.
enum ReittiRules {
    /// The `Double` properties Jackson binds (request:139-168).
    private static let numberProperties = [
        "altitude", "speed", "horizontal_accuracy", "vertical_accuracy", "battery_level",
    ]

    static func decideOverland(_ request: RecordedRequest, token: String) -> UplinkDecision {
        // The login page, where a request without a token is sent (permitted, a form login:
        // config/SecurityConfig.java:48, 76-79).
        if request.method == "GET", request.path == "/login" {
            return UplinkDecision(
                .answer(
                    status: 200, headers: ["Content-Type": "text/html"], body: "<!DOCTYPE html><title>Login</title>"))
        }
        // `@PostMapping("/overland")` under `/api/v1/ingest` (controller:27-44).
        guard request.method == "POST", request.path == "/api/v1/ingest/overland" else {
            return UplinkDecision(.text(404))
        }
        if let refused = authenticate(request, token: token) { return refused }
        // `@RequestBody`: JSON only (else Spring's 415), and a body Jackson cannot bind is a 400.
        let type = request.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        guard type?.lowercased() == "application/json" else { return UplinkDecision(.text(415)) }
        guard let body = JSONValue(parsing: request.body), body.members != nil, isBindable(body) else {
            return UplinkDecision(.text(400), dropped: "a body Jackson cannot bind")
        }
        let ok = UplinkReply.json(200, #"{"result":"ok"}"#)
        var kept: [StoredFix] = []
        for location in body["locations"]?.elements ?? [] {
            // No geometry, fewer than two coordinates or no properties: no point (request:82-86).
            guard let coordinates = location["geometry"]?["coordinates"]?.elements, coordinates.count >= 2,
                let properties = location["properties"], properties.members != nil,
                let longitude = number(coordinates[0]), let latitude = number(coordinates[1])
            else { continue }
            // The timestamp by ISO_OFFSET_DATE_TIME, else Instant.parse: an offset (`Z` or
            // `±HH:MM`) is required, Overland's own `-0700` is not read (request:91-103);
            // without a time or `horizontal_accuracy` the point is dropped, the answer
            // still `{"result":"ok"}` (controller:58-68).
            guard let stamp = properties["timestamp"]?.text, !stamp.contains("["),
                let time = ServerTimes.javaZoned(stamp), let accuracy = number(properties["horizontal_accuracy"])
            else { continue }
            var fix = StoredFix(
                device: token, latitude: latitude, longitude: longitude, time: time, accuracy: accuracy,
                altitude: number(properties["altitude"]))
            fix.fields = properties.scalarFields
            kept.append(fix)
        }
        // 200 `{"result":"ok"}`, also when nothing was kept (controller:50-55, 63-79).
        return UplinkDecision(ok, kept: kept, dropped: kept.isEmpty ? "no point with a time and an accuracy" : nil)
    }

    /// The token filters, URL first (config/SecurityConfig.java:72-73): `?token=`
    /// (config/security/UrlTokenAuthenticationFilter.java:29-35), then `X-API-Token`, else
    /// `Authorization` less a `Bearer ` prefix (config/security/TokenAuthenticationFilter.java:29-41).
    /// A wrong token is a 401 with an empty body (config/security/BaseTokenAuthenticationFilter.java:65-84);
    /// none at all is Spring Security's entry point: a 302 to `/login`
    /// (config/security/HtmxAuthenticationEntryPoint.java:20-33).
    private static func authenticate(_ request: RecordedRequest, token: String) -> UplinkDecision? {
        var authenticated = false
        if let given = QueryParameters.python(request.query).first("token"), !given.isEmpty {
            guard given == token else { return UplinkDecision(.text(401), dropped: "wrong token") }
            authenticated = true
        }
        var header = request.header("X-API-Token")
        if header == nil, let authorization = request.header("Authorization") {
            header = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : authorization
        }
        if let header {
            guard header == token else { return UplinkDecision(.text(401), dropped: "wrong token") }
            authenticated = true
        }
        guard authenticated else {
            return UplinkDecision(.answer(status: 302, headers: ["Location": "/login"], body: ""), dropped: "no token")
        }
        return nil
    }

    /// Whether Jackson binds the body to `OverlandLocationRequest`: `locations` an array
    /// of objects, coordinates and the `Double` properties numbers (or numeric strings,
    /// which it coerces) or null.
    private static func isBindable(_ body: JSONValue) -> Bool {
        guard let locations = body["locations"] else { return true }
        if locations == .null { return true }
        guard let elements = locations.elements else { return false }
        return elements.allSatisfy { location in
            guard location.members != nil else { return location == .null }
            let coordinates = location["geometry"]?["coordinates"]?.elements ?? []
            let properties = location["properties"]
            return coordinates.allSatisfy { $0 == .null || number($0) != nil }
                && numberProperties.allSatisfy { key in
                    properties?[key].map { $0 == .null || number($0) != nil } ?? true
                }
        }
    }

    /// A JSON number, or a string Java's `Double.parseDouble` reads (Jackson's coercion).
    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .number?: value?.double
        case .string(let text)?: ServerNumbers.javaDouble(text)
        default: nil
        }
    }
}
