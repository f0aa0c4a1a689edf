import Foundation

/// Traccar's OsmAnd protocol (port 5055) as its decoder reads a request, rule by rule.
///
/// Cited from traccar/traccar @ 9e5c458a, `src/main/java/org/traccar/` + the path; "decoder"
/// is `protocol/OsmAndProtocolDecoder.java`.
enum TraccarOsmAndRules {
    /// Traccar's own knots per m/s (helper/UnitsConverter.java:22,51-53): it stores knots,
    /// and the stand-in gives them back in m/s as a Traccar user would read them.
    static let knotsPerMetrePerSecond = 1.94384

    /// What Traccar does with `request` from a device among `devices`.
    static func decide(_ request: RecordedRequest, devices: Set<String>, context: inout UplinkRuleContext)
        -> UplinkDecision
    {
        // Any method, any path: the decoder never reads them. A JSON content type selects
        // the JSON decoder (decoder:71-76), a transistorsoft-style body the stand-in does
        // not read: closed, as Traccar closes on any JSON it cannot decode.
        if let type = request.header("Content-Type"), type.hasPrefix("application/json") {
            return UplinkDecision(.closeWithoutAnswer, dropped: "a JSON content type selects Traccar's JSON decoder")
        }
        // The URI's query first; only when it has no parameter, the body as a form read as
        // US-ASCII (decoder:82-87). A malformed escape throws: closed without an answer
        // (handler/network/MainEventHandler.java:76-82).
        let parameters: QueryParameters
        do {
            parameters = try QueryParameters.netty(Array(request.target.utf8), hasPath: true)
        } catch {
            return UplinkDecision(.closeWithoutAnswer, dropped: "a malformed escape in the query")
        }
        var form = parameters
        if parameters.isEmpty {
            do {
                form = try QueryParameters.netty(request.body, hasPath: false)
            } catch {
                return UplinkDecision(.closeWithoutAnswer, dropped: "a malformed escape in the form body")
            }
        }
        var reading = Reading()
        // Each name in the order it first appears, each of its values in order (decoder:96-98).
        for parameter in form.parameters {
            for value in parameter.values {
                switch reading.read(parameter.name, value, devices: devices) {
                case .next: continue
                case .unknownDevice(let id):
                    // Unknown device: 400 with an empty body, nothing stored (decoder:99-104;
                    // session/ConnectionManager.java:143-150, `database.registerUnknown` off).
                    return UplinkDecision(.text(400), dropped: "unknown device \(id)")
                case .unreadable(let why):
                    // A value Java cannot parse throws: the connection is closed without an
                    // answer (handler/network/MainEventHandler.java:76-82).
                    return UplinkDecision(.closeWithoutAnswer, dropped: why)
                }
            }
        }
        // No `id` at all: 400 (decoder:190, 201-204).
        guard let device = reading.device else { return UplinkDecision(.text(400), dropped: "no id") }
        context.connectionDevice = device
        var fields: [String: String] = [:]
        for parameter in form.parameters { fields[parameter.name] = parameter.values.last }
        fields["valid"] = String(reading.valid)
        var fix = StoredFix(
            device: device, latitude: 0, longitude: 0,
            // No timestamp: the server's time now (decoder:175-177), i.e. arrival.
            time: reading.time, speedMetersPerSecond: reading.knots.map { $0 / knotsPerMetrePerSecond },
            accuracy: reading.accuracy, altitude: reading.altitude, course: reading.course, fields: fields)
        if let latitude = reading.latitude, let longitude = reading.longitude {
            (fix.latitude, fix.longitude) = (latitude, longitude)
        } else {
            // Without both, the position is "outdated" at the device's last location
            // (decoder:183-188; BaseProtocolDecoder.java:188-195, handler OutdatedHandler).
            let last = context.lastFix(device)
            (fix.latitude, fix.longitude) = (last?.latitude ?? 0, last?.longitude ?? 0)
            fix.fields["outdated"] = "true"
        }
        // 200 with an empty body (no queued command) (decoder:190-200;
        // BaseHttpProtocolDecoder.java:37-46: Content-Length, keep-alive).
        return UplinkDecision(.text(200), kept: [fix])
    }

    /// The fields read so far, as the decoder's locals and the position hold them.
    private struct Reading {
        enum Step {
            case next
            case unknownDevice(String)
            case unreadable(String)
        }

        var device: String?
        var valid = true
        var time: Date?
        var latitude: Double?
        var longitude: Double?
        var knots: Double?
        var course: Double?
        var altitude: Double?
        var accuracy: Double?

        mutating func read(_ name: String, _ value: String, devices: Set<String>) -> Step {
            func number(_ value: String) -> Double? { ServerNumbers.javaDouble(value) }
            let unreadable = Step.unreadable("\(name)=\(value) is not what Traccar parses")
            switch name {
            case "id", "deviceid":
                guard devices.contains(value) else { return .unknownDevice(value) }
                device = value
            case "valid":
                // Boolean.parseBoolean(value) || "1".equals(value) (decoder:112).
                valid = value.lowercased() == "true" || value == "1"
            case "timestamp":
                // Long.parseLong; below Integer.MAX_VALUE seconds, else milliseconds; not an
                // integer: ISO zoned with a `T`, else "yyyy-MM-dd HH:mm:ss" (decoder:113-127).
                if let integer = ServerNumbers.javaLong(value) {
                    let milliseconds = integer < Int64(Int32.max) ? integer &* 1000 : integer
                    time = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
                } else if let date = value.contains("T")
                    ? ServerTimes.javaZoned(value) : ServerTimes.traccarLocal(value)
                {
                    time = date
                } else {
                    return unreadable
                }
            case "lat", "lon":
                // Double.parseDouble (decoder:128-129).
                guard let degrees = number(value) else { return unreadable }
                if name == "lat" { latitude = degrees } else { longitude = degrees }
            case "location":
                // "lat,lon" split on commas (decoder:130-134).
                let parts = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                guard parts.count >= 2, let lat = number(parts[0]), let lon = number(parts[1]) else {
                    return unreadable
                }
                (latitude, longitude) = (lat, lon)
            case "cell":
                // Four or five Integer.parseInt values (decoder:135-146).
                let parts = value.split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count >= 4, parts.prefix(5).allSatisfy({ Int32($0) != nil }) else { return unreadable }
            case "wifi":
                // A MAC and Integer.parseInt (decoder:147-151).
                let parts = value.split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count >= 2, Int32(parts[1]) != nil else { return unreadable }
            case "speed":
                // convertSpeed(value, "kn"): knots, unless `osmand.speed` says otherwise
                // (decoder:152; BaseProtocolDecoder.java:149-156).
                guard let speed = number(value) else { return unreadable }
                knots = speed
            case "bearing", "heading":
                guard let degrees = number(value) else { return unreadable }
                course = degrees
            case "altitude":
                guard let metres = number(value) else { return unreadable }
                altitude = metres
            case "accuracy":
                guard let metres = number(value) else { return unreadable }
                accuracy = metres
            case "hdop", "batt":
                // Double.parseDouble (decoder:156-157).
                guard number(value) != nil else { return unreadable }
            default:
                // notificationToken, driverUniqueId, charge, and any other key: an
                // attribute, a number, a boolean or the text (decoder:107-111, 158-170).
                break
            }
            return .next
        }
    }
}
