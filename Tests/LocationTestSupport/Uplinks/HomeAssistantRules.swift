import Foundation

/// Home Assistant's `traccar`, `owntracks` and `gpslogger` webhooks as they read a request,
/// rule by rule.
///
/// Cited from Home Assistant 2025.4.4 (PyPI), `homeassistant/components/` + the path.
enum HomeAssistantRules {
    /// What the webhook component does before the integration's handler runs: nil when
    /// the handler runs, else the answer (webhook/__init__.py:137-162).
    static func route(_ request: RecordedRequest, webhook: String) -> UplinkDecision? {
        // The view's route `/api/webhook/{webhook_id}` (webhook/__init__.py:33); any other path: 404.
        guard request.path.hasPrefix("/api/webhook/") else { return UplinkDecision(.text(404)) }
        let methods = ["GET", "HEAD", "POST", "PUT"]
        guard methods.contains(request.method) else { return UplinkDecision(.text(405)) }
        // An unregistered webhook answers 200 with an empty body, "to not give away if a
        // hook exists" (webhook/__init__.py:137-148).
        guard request.path.dropFirst("/api/webhook/".count) == webhook else {
            return UplinkDecision(.text(200), dropped: "unregistered webhook")
        }
        // Registered without `allowed_methods`: POST and PUT (traccar/__init__.py:94-96,
        // webhook/__init__.py:31); HEAD 200, anything else 405 (webhook/__init__.py:150-162).
        if request.method == "HEAD" { return UplinkDecision(.text(200)) }
        guard request.method == "POST" || request.method == "PUT" else { return UplinkDecision(.text(405)) }
        return nil
    }

    /// The traccar webhook (traccar/__init__.py, names from traccar/const.py:8-20).
    static func decideTraccar(_ request: RecordedRequest, webhook: String) -> UplinkDecision {
        if let routed = route(request, webhook: webhook) { return routed }
        // Only the query, as `dict(request.query)`: the first value of a repeated name (:63).
        let query = QueryParameters.python(request.query)
        // WEBHOOK_SCHEMA (:42-55); other keys removed (REMOVE_EXTRA). A value that does not
        // coerce, or a missing required key, is a 422 with voluptuous' message (:64-67).
        var errors: [String] = []
        func float(_ name: String, _ message: String = "expected float", range: ClosedRange<Double>? = nil) -> Double? {
            guard let text = query.first(name) else { return nil }
            guard let value = ServerNumbers.pythonFloat(text), range.map({ $0.contains(value) }) ?? true else {
                errors.append(message)
                return nil
            }
            return value
        }
        let id = query.first("id").map { $0.replacingOccurrences(of: "-", with: "") }
        let latitude = float("lat", "invalid latitude", range: -90...90)
        let longitude = float("lon", "invalid longitude", range: -180...180)
        let accuracy = float("accuracy") ?? 200
        let altitude = float("altitude")
        _ = float("batt")
        let bearing = float("bearing")
        _ = float("speed")
        if let timestamp = query.first("timestamp"), ServerNumbers.pythonInt(timestamp) == nil {
            errors.append("expected int")
        }
        for name in ["id", "lat", "lon"] where query.first(name) == nil { errors.append("required key not provided") }
        guard errors.isEmpty, let id, let latitude, let longitude else {
            return UplinkDecision(.text(422, errors.first ?? ""), dropped: errors.first)
        }
        var fields: [String: String] = [:]
        for name in ["id", "lat", "lon", "accuracy", "altitude", "batt", "bearing", "speed", "timestamp"] {
            fields[name] = query.first(name)
        }
        // Position and accuracy from every update, `timestamp` validated and ignored: the
        // time is the arrival (:69-86; traccar/device_tracker.py:178-191). `speed` is an
        // attribute shown as sent, without a unit (in `fields`).
        let fix = StoredFix(
            device: id, latitude: latitude, longitude: longitude, time: nil, accuracy: accuracy, altitude: altitude,
            course: bearing, fields: fields)
        // 200 "Setting location for DEVICE" (:88).
        return UplinkDecision(.text(200, "Setting location for \(id)"), kept: [fix])
    }

    /// The gpslogger webhook (gpslogger/__init__.py, names from gpslogger/const.py).
    static func decideGPSLogger(_ request: RecordedRequest, webhook: String) -> UplinkDecision {
        if let routed = route(request, webhook: webhook) { return routed }
        // `dict(await request.post())` (:62): aiohttp reads a body only under a form content
        // type or an empty one (no header is application/octet-stream), trailing white space
        // stripped, then parse_qsl (aiohttp web_request.py:709-716, 784-794); else no fields.
        let type =
            request.header("Content-Type").map {
                $0.split(separator: ";").first.map(String.init)?.trimmingCharacters(in: .whitespaces).lowercased()
                    ?? ""
            } ?? "application/octet-stream"
        var body = request.body[...]
        while let last = body.last, [0x20, 0x09, 0x0A, 0x0B, 0x0C, 0x0D].contains(last) { body.removeLast() }
        let form =
            ["", "application/x-www-form-urlencoded"].contains(type) ? QueryParameters.python(Array(body)) : .init()
        // WEBHOOK_SCHEMA (:41-54), checked in the order of the fields (voluptuous), then the
        // missing required ones; any key it does not name is an error too (voluptuous'
        // default PREVENT_EXTRA). The first error is the 422's text (:63-66).
        var errors: [String] = []
        var numbers: [String: Double] = [:]
        for parameter in form.parameters {
            let text = parameter.values[0]
            switch parameter.name {
            case "device", "activity", "provider": continue
            case "latitude", "longitude":
                let limit = parameter.name == "latitude" ? 90.0 : 180
                guard let value = ServerNumbers.pythonFloat(text), (-limit...limit).contains(value) else {
                    errors.append("invalid \(parameter.name)")
                    continue
                }
                numbers[parameter.name] = value
            case "accuracy", "altitude", "battery", "direction", "speed":
                guard let value = ServerNumbers.pythonFloat(text) else {
                    errors.append("expected float")
                    continue
                }
                numbers[parameter.name] = value
            default: errors.append("extra keys not allowed")
            }
        }
        for name in ["device", "latitude", "longitude"] where form.first(name) == nil {
            errors.append("required key not provided")
        }
        // `_id` drops the `-`s (:36-38).
        guard errors.isEmpty, let device = form.first("device")?.replacingOccurrences(of: "-", with: ""),
            let latitude = numbers["latitude"], let longitude = numbers["longitude"]
        else { return UplinkDecision(.text(422, errors.first ?? ""), dropped: errors.first) }
        let fields = Dictionary(form.parameters.map { ($0.name, $0.values[0]) }) { first, _ in first }
        // No time in the schema: the arrival (device_tracker.py:138-149). `speed` is an
        // attribute shown as sent (in `fields`).
        let fix = StoredFix(
            device: device, latitude: latitude, longitude: longitude, time: nil, accuracy: numbers["accuracy"] ?? 200,
            altitude: numbers["altitude"], course: numbers["direction"], fields: fields)
        // 200 "Setting location for DEVICE" (:88).
        return UplinkDecision(.text(200, "Setting location for \(device)"), kept: [fix])
    }

    /// The owntracks webhook (owntracks/__init__.py, owntracks/messages.py).
    static func decideOwnTracks(_ request: RecordedRequest, webhook: String) -> UplinkDecision {
        if let routed = route(request, webhook: webhook) { return routed }
        let persons = UplinkReply.json(200, "[]")
        // Not JSON: a warning, 200 `[]` (__init__.py:167-171). Not an object: the handler
        // raises, which the webhook answers 200 with an empty body (webhook/__init__.py:197-199).
        guard let message = JSONValue(parsing: request.body) else {
            return UplinkDecision(persons, dropped: "invalid JSON")
        }
        guard message.members != nil else { return UplinkDecision(.text(200), dropped: "not a JSON object") }
        // Without `topic`, from `X-Limit-U` and `X-Limit-D` (default: the user); neither: a
        // warning, 200 `[]` (__init__.py:173-188).
        var topic: String
        if let given = message["topic"] {
            guard let text = given.string else { return UplinkDecision(persons, dropped: "topic is not a string") }
            topic = text
        } else if let user = request.header("X-Limit-U"), !user.isEmpty {
            topic = "owntracks/\(user)/\(request.header("X-Limit-D") ?? user)"
        } else {
            guard message["_type"] != nil else { return UplinkDecision(.text(200), dropped: "no _type") }
            return UplinkDecision(persons, dropped: "no topic and no X-Limit-U")
        }
        // The answer is the persons' array whatever happens next (__init__.py:190-214), but
        // without `_type` the handler raises at :204: 200, empty body (webhook/__init__.py:197-199).
        guard let type = message["_type"] else { return UplinkDecision(.text(200), dropped: "no _type") }
        guard type.string == "location" else { return UplinkDecision(persons, dropped: "not a location") }
        // `acc` present and a number, not 0 (__init__.py:245-261).
        let accuracy: Double?
        switch message["acc"] {
        case .number?: accuracy = message["acc"]?.double
        case .string(let text)?: accuracy = ServerNumbers.pythonFloat(text)
        case .bool(let flag)?: accuracy = flag ? 1 : 0
        default: accuracy = nil
        }
        guard let accuracy else { return UplinkDecision(persons, dropped: "no acc, or not a number") }
        guard accuracy != 0 else { return UplinkDecision(persons, dropped: "acc is 0") }
        // User and device: the topic's second and third levels (messages.py:34-53);
        // `dev_id` = slugify("user_device") (messages.py:61-62).
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        guard levels.count >= 3 else {
            return UplinkDecision(persons, dropped: "topic \(topic) has no user and device")
        }
        topic = "\(levels[1])_\(levels[2])"
        // `lat`, `lon` (messages.py:64-67), as `see` reads them.
        guard let latitude = number(message["lat"]), let longitude = number(message["lon"]) else {
            return UplinkDecision(persons, dropped: "lat or lon missing")
        }
        var fix = StoredFix(
            device: slugify(topic), latitude: latitude, longitude: longitude, time: nil, accuracy: accuracy)
        // `vel` and `cog` are attributes shown as sent (messages.py:73-80): in `fields`.
        fix.fields = message.scalarFields
        return UplinkDecision(persons, kept: [fix])
    }

    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .number?: value?.double
        case .string(let text)?: ServerNumbers.pythonFloat(text)
        default: nil
        }
    }

    /// Home Assistant's `slugify` (util/__init__.py) for ASCII names: lower case, every run
    /// of other characters one `_`, none at either end.
    static func slugify(_ text: String) -> String {
        var slug = ""
        for character in text.lowercased() {
            if character.isASCII && (character.isLetter || character.isNumber) {
                slug.append(character)
            } else if !slug.isEmpty, slug.last != "_" {
                slug.append("_")
            }
        }
        while slug.hasSuffix("_") { slug.removeLast() }
        return slug
    }
}
