import Foundation

/// PhoneTrack (Nextcloud) as its logging routes read a request: `log/traccar` (the OsmAnd
/// query), `log/owntracks` and `log/overland`, each into `logPost`.
///
/// Cited from julien-nc/phonetrack @ 686c41a3 (`appinfo/routes.php`,
/// `lib/Controller/LogController.php`, "controller"), and for the parameters Nextcloud's
/// app framework (nextcloud/server @ 0005a244 `lib/private/AppFramework/Http/Request.php`:
/// the query, then the body (a form, or JSON under a JSON content type), then the route's
/// own parameters over them; `Dispatcher.php` `executeController`: an `int` or `float`
/// parameter goes through PHP's `settype`, which reads a string's leading number and never fails).
/// Not modelled: locked sessions, reserved device names, quotas, brute-force throttling.
enum PhoneTrackRules {
    /// Device names that stand for "none" (controller:52, 82-94).
    private static let defaultNames: Set<String> = ["yourname", "devicename", "name"]

    private struct Route {
        let name: String
        let deviceName: String?
    }

    static func decide(_ request: RecordedRequest, token: String) -> UplinkDecision {
        // `/apps/phonetrack/log/{traccar,owntracks,overland}/{token}/{device}`, POST only
        // (routes.php:75, 77-78); the device is optional but for overland.
        var path = Substring(request.path)
        if path.hasPrefix("/index.php") { path = path.dropFirst("/index.php".count) }
        let levels = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard levels.count >= 6, levels.count <= 7, levels[0].isEmpty, levels[1] == "apps", levels[2] == "phonetrack",
            levels[3] == "log", ["traccar", "owntracks", "overland"].contains(levels[4]),
            levels[4] != "overland" || levels.count == 7
        else { return UplinkDecision(.text(404)) }
        guard request.method == "POST" else { return UplinkDecision(.text(405)) }
        let route = Route(name: levels[4], deviceName: levels.count == 7 ? levels[6] : nil)
        let params = parameters(request)
        switch route.name {
        case "traccar": return traccar(params, route: route, given: levels[5], token: token)
        case "owntracks": return ownTracks(params, route: route, given: levels[5], token: token)
        default: return overland(params, route: route, given: levels[5], token: token)
        }
    }

    /// `logTraccar` (controller:1644-1684).
    private static func traccar(_ params: [String: JSONValue], route: Route, given: String, token: String)
        -> UplinkDecision
    {
        guard let lat = phpFloat(params["lat"]), let lon = phpFloat(params["lon"]) else {
            return UplinkDecision(.json(400, #"{"error":"Latitude or longitude missing"}"#), dropped: "no lat or lon")
        }
        // The route's `deviceName` (default '') is a URL parameter, over any in the query.
        let device = chooseDeviceName(route.deviceName ?? "", params["id"]?.text)
        // "speed is converted in knots": back to m/s (controller:1667-1669).
        let speed = phpFloat(params["speed"]).map { $0 / 1.943844 }
        let point = Point(
            lat: lat, lon: lon, altitude: phpFloat(params["altitude"]), timestamp: phpInt(params["timestamp"]),
            accuracy: phpFloat(params["accuracy"]), speed: speed, bearing: phpFloat(params["bearing"]))
        return logPost(point, device: device, given: given, token: token, ok: .json(200, #"{"status":"success"}"#))
    }

    /// `logOwntracks` (controller:1546-1570): `vel` and `cog` are not read.
    private static func ownTracks(_ params: [String: JSONValue], route: Route, given: String, token: String)
        -> UplinkDecision
    {
        guard let lat = phpFloat(params["lat"]), let lon = phpFloat(params["lon"]) else {
            return UplinkDecision(.json(200, #"{"result":"ok"}"#), dropped: "no lat or lon")
        }
        let device = chooseDeviceName(route.deviceName ?? "", params["tid"]?.text)
        let point = Point(
            lat: lat, lon: lon, altitude: phpFloat(params["alt"]), timestamp: phpInt(params["tst"]),
            accuracy: phpFloat(params["acc"]), speed: nil, bearing: nil)
        // The friends of a public session, else `[]` (controller:1567-1569, 1065-1126).
        return logPost(point, device: device, given: given, token: token, ok: .json(200, "[]"))
    }

    /// `logOverland` (controller:1579-1605).
    private static func overland(_ params: [String: JSONValue], route: Route, given: String, token: String)
        -> UplinkDecision
    {
        let failed = UplinkReply.json(500, #"{"message":"Internal Server Error"}"#)
        // `array $locations`: missing or not an array, a TypeError (controller:1579).
        guard let locations = params["locations"]?.elements ?? params["locations"]?.members?.map(\.value) else {
            return UplinkDecision(failed, dropped: "no locations array")
        }
        var kept: [StoredFix] = []
        for location in locations {
            // Only Point features (controller:1581).
            guard location["type"]?.string == "Feature", location["geometry"]?["type"]?.string == "Point" else {
                continue
            }
            let properties = location["properties"]
            let coordinates = location["geometry"]?["coordinates"]?.elements ?? []
            // `device_id` unless empty or a default name, else the URL's (controller:1582).
            let device = chooseDeviceName(properties?["device_id"]?.text ?? "", route.deviceName)
            // `new DateTime(timestamp)`: text it cannot read throws (a 500); none is now (controller:1585-1586).
            var timestamp: Double?
            if let stamp = properties?["timestamp"], stamp != .null {
                guard let text = stamp.string, let date = ServerTimes.rubyDateTime(text) else {
                    return UplinkDecision(failed, kept: kept, dropped: "a timestamp DateTime does not read")
                }
                timestamp = date.timeIntervalSince1970.rounded(.down)
            }
            // Passed on to `logPost(string, string, float, float, ?float …)` under
            // strict_types: a string where a number is due is a TypeError, a 500 (controller:3, 1593).
            let numbers = ["horizontal_accuracy", "altitude", "speed"].map { properties?[$0] }
            guard coordinates.count >= 2, let lon = coordinates[0].double, let lat = coordinates[1].double,
                numbers.allSatisfy({ $0 == nil || $0 == .null || $0?.double != nil })
            else { return UplinkDecision(failed, kept: kept, dropped: "a value of the wrong type") }
            let point = Point(
                lat: lat, lon: lon, altitude: properties?["altitude"]?.double,
                timestamp: timestamp ?? Date().timeIntervalSince1970.rounded(.down),
                accuracy: properties?["horizontal_accuracy"]?.double, speed: properties?["speed"]?.double, bearing: nil)
            let logged = logPost(point, device: device, given: given, token: token, ok: .json(200, "{}"))
            // The first refusal ends the batch with its status; earlier points stay (controller:1594-1601).
            guard case .answer(200, _, _) = logged.reply else {
                return UplinkDecision(.json(statusOf(logged.reply), "[]"), kept: kept, dropped: logged.dropped)
            }
            kept += logged.kept.map { fix in
                var fix = fix
                if timestamp == nil { fix.time = nil }  // now: the arrival
                fix.fields = properties?.scalarFields ?? [:]
                return fix
            }
        }
        return UplinkDecision(.json(200, #"{"result":"ok"}"#), kept: kept)
    }

    private struct Point {
        let lat: Double
        let lon: Double
        let altitude: Double?
        let timestamp: Double?
        let accuracy: Double?
        let speed: Double?
        let bearing: Double?
    }

    /// `logPost` (controller:907-1128): the session by its token (else 403, controller:932-944);
    /// a timestamp is required (403, :926-931), one above 10^10 is milliseconds (:1004-1008);
    /// the accuracy kept to two decimals (:1032-1034); every point stored, none de-duplicated.
    private static func logPost(_ point: Point, device: String, given: String, token: String, ok: UplinkReply)
        -> UplinkDecision
    {
        guard let timestamp = point.timestamp else {
            return UplinkDecision(
                .json(
                    403,
                    #"{"done":0,"friends":[],"pointId":null,"deviceId":null,"error":"missing timestamp (and datetime)"}"#
                ),
                dropped: "no timestamp")
        }
        guard given == token else {
            return UplinkDecision(
                .json(403, #"{"done":0,"friends":[],"pointId":null,"deviceId":null,"error":"wrong token"}"#),
                dropped: "wrong token")
        }
        let seconds = timestamp > 10_000_000_000 ? timestamp / 1000 : timestamp
        let fix = StoredFix(
            device: device, latitude: point.lat, longitude: point.lon,
            time: Date(timeIntervalSince1970: seconds), speedMetersPerSecond: point.speed,
            accuracy: point.accuracy.map { ($0 * 100).rounded() / 100 }, altitude: point.altitude,
            course: point.bearing)
        return UplinkDecision(ok, kept: [fix])
    }

    private static func statusOf(_ reply: UplinkReply) -> Int {
        if case .answer(let status, _, _) = reply { return status }
        return 500
    }

    /// `chooseDeviceName` (controller:82-94): the name unless empty or a default, else the
    /// second choice, else "unknown".
    private static func chooseDeviceName(_ name: String?, _ second: String?) -> String {
        if let name, !name.isEmpty, !defaultNames.contains(name) { return name }
        if let second, !second.isEmpty { return second }
        return "unknown"
    }

    /// Nextcloud's request parameters: the query, the body over it, as PHP values.
    private static func parameters(_ request: RecordedRequest) -> [String: JSONValue] {
        var params: [String: JSONValue] = [:]
        for parameter in QueryParameters.python(request.query).parameters {
            params[parameter.name] = .string(parameter.values.last ?? "")
        }
        let type = request.header("Content-Type")?.lowercased() ?? ""
        if type.contains("application/json"), let json = JSONValue(parsing: request.body) {
            for member in json.members ?? [] { params[member.key] = member.value }
        } else if type.contains("application/x-www-form-urlencoded") {
            for parameter in QueryParameters.python(request.body).parameters {
                params[parameter.name] = .string(parameter.values.last ?? "")
            }
        }
        return params
    }

    /// PHP's `settype($value, 'float')` of a parameter: a number, a string's leading number
    /// (else 0), a boolean 1 or 0; nil for a missing or null one.
    private static func phpFloat(_ value: JSONValue?) -> Double? {
        switch value {
        case nil, .null?: nil
        case .number?: value?.double
        case .string(let text)?: ServerNumbers.cAtof(text)
        case .bool(let flag)?: flag ? 1 : 0
        default: 1
        }
    }

    /// PHP's `settype($value, 'int')`: the float's integer part.
    private static func phpInt(_ value: JSONValue?) -> Double? {
        phpFloat(value).map { $0.rounded(.towardZero) }
    }
}
