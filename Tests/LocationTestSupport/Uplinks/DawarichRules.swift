import Foundation

/// Dawarich's OwnTracks and Overland endpoints as Rails and its services read a request.
///
/// Cited from Freika/dawarich @ 60734da4 (`app/`, `config/`), and for the parameters
/// Rails' ActionDispatch (rails/rails actionpack/lib/action_dispatch/http/parameters.rb
/// `parameters`: the JSON body's members, then the query's over them; a JSON body is parsed
/// only under a JSON content type, `mime_types.rb`: application/json, text/x-json,
/// application/jsonrequest; a body that does not parse is a 400).
enum DawarichRules {
    /// The permitted OwnTracks members (app/controllers/api/v1/owntracks/points_controller.rb:19-28).
    private static let ownTracksFields: Set<String> = [
        "_type", "lat", "lon", "tst", "tid", "t", "bs", "batt", "p", "acc", "vac", "vel", "alt", "SSID", "BSSID",
        "topic", "conn", "cog", "rad", "m",
    ]

    /// `POST /api/v1/owntracks/points` (config/routes.rb:280-282).
    static func decideOwnTracks(_ request: RecordedRequest, apiKey: String) -> UplinkDecision {
        let params: [String: JSONValue]
        switch parameters(request, route: "/api/v1/owntracks/points", apiKey: apiKey) {
        case .refused(let decision): return decision
        case .accepted(let accepted): params = accepted
        }
        // The answer is 200 `[]` whatever became of the point (points_controller.rb:7-10).
        let answer = UplinkReply.json(200, "[]")
        // Only scalar values of the permitted keys are kept (points_controller.rb:26-28).
        let point = params.filter { ownTracksFields.contains($0.key) && isScalar($0.value) }
        // Kept only with `lon`, `lat` and `tst` present (app/services/own_tracks/params.rb:91-93).
        guard let lon = point["lon"], let lat = point["lat"], let tst = point["tst"], isPresent(lon), isPresent(lat),
            isPresent(tst)
        else { return UplinkDecision(answer, dropped: "lon, lat or tst is missing") }
        // `lonlat` "POINT(lon lat)" (params.rb:16): PostGIS refuses what is not a number,
        // and the exception is a 500 (points_controller.rb:11-14).
        guard let longitude = coordinate(lon), let latitude = coordinate(lat), let timestamp = rubyToI(tst) else {
            return UplinkDecision(
                .json(500, #"{"error":"Point creation failed"}"#), dropped: "unreadable lon, lat or tst")
        }
        var fix = StoredFix(
            device: point["tid"]?.text ?? "", latitude: latitude, longitude: longitude,
            // `timestamp = tst.to_i` (params.rb:26).
            time: Date(timeIntervalSince1970: Double(timestamp)), accuracy: point["acc"].flatMap(rubyToF),
            altitude: point["alt"].flatMap(rubyToF))
        // `velocity`: km/h to m/s rounded to 0.1 only when `topic` is present; without it
        // the km/h number is kept as it is (params.rb:79-89).
        if let topic = point["topic"], isPresent(topic) {
            let kmh = point["vel"].flatMap(rubyToF) ?? 0
            fix.speedMetersPerSecond = ((kmh * 1000) / 3600 * 10).rounded(.toNearestOrAwayFromZero) / 10
        } else {
            fix.speedMetersPerSecond = point["vel"].flatMap(rubyToF)
        }
        fix.course = point["cog"].flatMap(rubyToF)
        fix.fields = point.compactMapValues(\.text)
        return UplinkDecision(answer, kept: [fix])
    }

    /// `POST /api/v1/overland/batches` (config/routes.rb:276-278).
    static func decideOverland(_ request: RecordedRequest, apiKey: String) -> UplinkDecision {
        let params: [String: JSONValue]
        switch parameters(request, route: "/api/v1/overland/batches", apiKey: apiKey) {
        case .refused(let decision): return decision
        case .accepted(let accepted): params = accepted
        }
        let failed = UplinkReply.json(500, #"{"error":"Batch creation failed"}"#)
        var kept: [StoredFix] = []
        // `locations`: the features, each `type`, `geometry` and `properties`
        // (app/controllers/api/v1/overland/batches_controller.rb:19-21).
        for feature in params["locations"]?.elements ?? [] where feature.members != nil {
            // Skipped without `geometry` or `properties.timestamp` (app/services/overland/params.rb:15).
            guard let geometry = feature["geometry"], geometry != .null,
                let stamp = feature["properties"]?["timestamp"],
                stamp != .null
            else { continue }
            let properties = feature["properties"]
            // `DateTime.parse` of the timestamp: a string; anything else raises, a 500 (params.rb:23;
            // batches_controller.rb:11-15).
            guard let stampText = stamp.string, let time = ServerTimes.rubyDateTime(stampText) else {
                return UplinkDecision(failed, dropped: "timestamp \(stamp) is not a time DateTime.parse reads")
            }
            // `lonlat` POINT(coordinates[0] coordinates[1]): [lon, lat]; no coordinates, the
            // point is left out (params.rb:46-51; overland/points_creator.rb:19).
            guard let coordinates = geometry["coordinates"]?.elements, !coordinates.isEmpty else { continue }
            guard coordinates.count >= 2, let longitude = coordinate(coordinates[0]),
                let latitude = coordinate(coordinates[1])
            else { return UplinkDecision(failed, dropped: "coordinates PostGIS cannot read") }
            var fix = StoredFix(
                device: properties?["device_id"]?.string ?? "", latitude: latitude, longitude: longitude,
                time: time,
                // `velocity` ← speed (m/s), `accuracy` ← horizontal_accuracy (params.rb:24-29).
                speedMetersPerSecond: properties?["speed"].flatMap(rubyToF),
                accuracy: properties?["horizontal_accuracy"].flatMap(rubyToF),
                altitude: properties?["altitude"].flatMap(rubyToF), course: properties?["course"].flatMap(rubyToF))
            fix.fields = properties?.scalarFields ?? [:]
            // Duplicates inside a batch removed (overland/points_creator.rb:21).
            kept.removeAll { sameKey($0, fix) }
            kept.append(fix)
        }
        // 201 Created `{"result":"ok"}` (batches_controller.rb:7-10).
        return UplinkDecision(.json(201, #"{"result":"ok"}"#), kept: kept)
    }

    /// Whether two points are one row: upserts are unique by `(lonlat, timestamp, user_id)`
    /// (own_tracks/point_creator.rb:36-47; overland/points_creator.rb:39-47).
    static func sameKey(_ a: StoredFix, _ b: StoredFix) -> Bool {
        a.latitude == b.latitude && a.longitude == b.longitude && a.time == b.time
    }

    private enum Parameters {
        case accepted([String: JSONValue])
        case refused(UplinkDecision)
    }

    /// Rails' `params` for a request to `route` (`POST`, with Rails' optional `.json`
    /// format; another is a 404), once the API key is checked.
    private static func parameters(_ request: RecordedRequest, route: String, apiKey: String) -> Parameters {
        guard request.method == "POST", request.path == route || request.path == route + ".json" else {
            return .refused(UplinkDecision(.text(404)))
        }
        var params: [String: JSONValue] = [:]
        let type = request.header("Content-Type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
        if let type, ["application/json", "text/x-json", "application/jsonrequest"].contains(type.lowercased()),
            !request.body.isEmpty
        {
            guard let json = JSONValue(parsing: request.body) else {
                return .refused(UplinkDecision(.text(400), dropped: "the JSON body does not parse"))
            }
            for member in json.members ?? [] { params[member.key] = member.value }
        }
        guard let query = try? QueryParameters.rack(request.query) else {
            return .refused(UplinkDecision(.text(400), dropped: "a malformed escape in the query"))
        }
        for parameter in query.parameters { params[parameter.name] = .string(parameter.values.last ?? "") }
        // The key: `params[:api_key]`, else `Authorization: Bearer KEY`; no user with it is
        // a 401 with an empty body (app/controllers/api_controller.rb:37-41, 122-134).
        let bearer = request.header("Authorization").flatMap {
            $0.wholeMatch(of: /(?i)Bearer\s+(\S+)/).map { String($0.1) }
        }
        let key = params["api_key"].map { $0.string ?? "" } ?? bearer
        guard key == apiKey else { return .refused(UplinkDecision(.text(401), dropped: "API key")) }
        return .accepted(params)
    }

    /// A permitted scalar (ActionController::Parameters): not an array or object.
    private static func isScalar(_ value: JSONValue) -> Bool { value.members == nil && value.elements == nil }

    /// Ruby's `present?`: not nil, false, or an empty or blank string.
    private static func isPresent(_ value: JSONValue) -> Bool {
        switch value {
        case .null, .bool(false): false
        case .string(let text): !text.allSatisfy(\.isWhitespace)
        default: true
        }
    }

    /// A coordinate PostGIS reads in `POINT(x y)`: a number, or a string that is one.
    private static func coordinate(_ value: JSONValue) -> Double? {
        switch value {
        case .number: value.double
        case .string(let text): Double(text.trimmingCharacters(in: .whitespaces))
        default: nil
        }
    }

    /// Ruby's `to_i`: a number truncated, a string's leading integer (or 0); nil where
    /// `to_i` does not exist (true, false: NoMethodError, a 500).
    private static func rubyToI(_ value: JSONValue) -> Int? {
        switch value {
        case .number:
            return value.double.map { Int($0.rounded(.towardZero)) }
        case .string(let text):
            let trimmed = text.drop { $0.isWhitespace }
            let sign = trimmed.first == "-" || trimmed.first == "+" ? 1 : 0
            let digits = trimmed.dropFirst(sign).prefix { $0.isASCII && $0.isNumber }
            return Int(trimmed.prefix(sign + digits.count)) ?? 0
        case .null:
            return 0
        default:
            return nil
        }
    }

    /// Ruby's `to_f` of a number or a string (its leading number, or 0).
    private static func rubyToF(_ value: JSONValue) -> Double? {
        switch value {
        case .number: value.double
        case .string(let text): ServerNumbers.cAtof(text)
        default: nil
        }
    }
}
