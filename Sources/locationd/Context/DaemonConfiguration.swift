import Foundation
import LocationMQTT
import LocationRegions
import LocationState
import LocationTimeline
import LocationUplinks
import Logging

/// Everything `locationd run` needs to know, from flags, the environment and the configuration file.
///
/// The file is plain `key = value` lines, `#` starts a comment, keys are the long
/// flag names of `locationd run` (`source`, `gpsd`, `data-dir`, `socket`, `zooms`,
/// `freshness-timeout`, `log-level`, `record`, `timezone`, and
/// ``HTTPConfiguration``'s `http`, `http-token-file`, `http-basemap`). Every layer goes through
/// ``apply(key:value:origin:)``, so a value means the same and is checked the same
/// wherever it comes from; ``DaemonConfigurationSource`` stacks the layers.
struct DaemonConfiguration: Equatable, Sendable {
    /// Where fixes come from.
    enum Source: Equatable, Sendable {
        /// gpsd when it delivers fixes, the simulator otherwise.
        case auto
        /// gpsd only.
        case gpsd
        /// The simulator only.
        case simulated
        /// A recorded track, looped.
        case replay(path: String)
    }

    var source: Source = .auto
    var gpsdHost = "localhost"
    var gpsdPort = 2947
    var dataDirectory: String
    var socketPath: String?
    /// The control socket's mode: 0600 (owner only) or 0660 (the daemon's group too, as the
    /// packaged service's socket); never open to other users, since the location is private.
    var socketMode: UInt16 = 0o600
    var zooms: [Int] = [14, 17]
    var freshnessTimeoutSeconds: Double = 5
    var logLevel: Logger.Level = .info
    var record = false
    /// Region monitoring: the region file, hooks, dwell (its own keys).
    var regions = RegionConfiguration()
    /// The HTTP server (`http`, `http-token-file`, `http-basemap`).
    var http = HTTPConfiguration()
    var mqtt = MQTTConfiguration()
    /// The HTTP servers the fixes are sent to (`uplink`, repeatable) and their policy.
    var uplinks = UplinkSettings()
    /// Stays, trips and motion (`stay-distance`, `stay-duration`, `stay-gap`, `max-speed`).
    var motion = MotionConfiguration()
    /// The zone days are counted in (`timezone`, an IANA name); nil for the system's, which
    /// ``DaemonConfigurationSource/resolve()`` fills in.
    var timeZone: LocalDays?

    /// The days of the timeline, the tracks' views, the tile statistics and MQTT's distance.
    var days: LocalDays { timeZone ?? .utc }

    /// The control socket: `--socket`, or `control.sock` in the data directory.
    var resolvedSocketPath: String { socketPath ?? dataDirectory + "/" + DataDirectory.Name.controlSocket }

    /// The settings a running daemon takes over on SIGHUP; the others need a restart.
    static let reloadableKeys: Set<String> = ["log-level"]

    /// The freshness timeouts that make sense, in seconds: from a 20 Hz receiver's
    /// epoch to a day. Outside it a timer would never fire or fire all the time.
    static let freshnessTimeoutRange = 0.05...86_400.0

    /// The settings' names whose values differ from `other`'s.
    func keysDiffering(from other: DaemonConfiguration) -> [String] {
        var keys: [String] = []
        if source != other.source { keys.append("source") }
        if (gpsdHost, gpsdPort) != (other.gpsdHost, other.gpsdPort) { keys.append("gpsd") }
        if dataDirectory != other.dataDirectory { keys.append("data-dir") }
        if socketPath != other.socketPath { keys.append("socket") }
        if socketMode != other.socketMode { keys.append("socket-mode") }
        if zooms != other.zooms { keys.append("zooms") }
        if freshnessTimeoutSeconds != other.freshnessTimeoutSeconds { keys.append("freshness-timeout") }
        if logLevel != other.logLevel { keys.append("log-level") }
        if record != other.record { keys.append("record") }
        if timeZone != other.timeZone { keys.append("timezone") }
        if regions != other.regions { keys.append("regions") }
        keys += http.keysDiffering(from: other.http)
        if mqtt != other.mqtt { keys.append("mqtt") }
        if uplinks != other.uplinks { keys.append("uplink") }
        let thresholds: [(String, KeyPath<MotionConfiguration, Double>)] = [
            ("stay-distance", \.stayDistance), ("stay-duration", \.stayDuration), ("stay-gap", \.stayGap),
            ("max-speed", \.maxSpeed),
        ]
        keys += thresholds.filter { motion[keyPath: $0.1] != other.motion[keyPath: $0.1] }.map(\.0)
        return keys
    }

    /// Applies one `key = value` setting; `origin` names where it came from, for errors.
    mutating func apply(key: String, value: String, origin: String) throws(LocationError) {
        guard !value.isEmpty else { throw .usage("\(origin): \(key) needs a value") }
        switch key {
        case "source":
            source = try Self.parseSource(value.split(separator: " ").map(String.init), origin: origin)
        case "gpsd":
            (gpsdHost, gpsdPort) = try Self.parseAddress(value, origin: origin)
        case "data-dir":
            dataDirectory = value
        case "socket":
            socketPath = value
        case "socket-mode":
            guard let mode = ["0600": 0o600, "600": 0o600, "0660": 0o660, "660": 0o660][value] else {
                throw .usage(
                    "\(origin): socket-mode must be 0600 (owner only) or 0660 (owner and group), not \(value.quotedForMessage)"
                )
            }
            socketMode = UInt16(mode)
        case "zooms":
            zooms = try Self.parseZooms(value, origin: origin)
        case "timezone":
            guard let days = LocalDays(named: value) else {
                throw .usage(
                    "\(origin): timezone must be a time zone name such as Europe/Zurich or UTC, not \(value.quotedForMessage)"
                )
            }
            timeZone = days
        case "freshness-timeout":
            let range = Self.freshnessTimeoutRange
            guard let seconds = Double(value.hasSuffix("s") ? String(value.dropLast()) : value),
                range.contains(seconds)
            else {
                throw .usage(
                    "\(origin): freshness-timeout must be a number of seconds from \(range.lowerBound) to \(Int(range.upperBound)), not \(value.quotedForMessage)"
                )
            }
            freshnessTimeoutSeconds = seconds
        case "log-level":
            guard let level = Logger.Level(rawValue: value.lowercased()) else {
                throw .usage(
                    "\(origin): log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not \(value.quotedForMessage)"
                )
            }
            logLevel = level
        case "record":
            guard let flag = ["true": true, "yes": true, "1": true, "false": false, "no": false, "0": false][value]
            else { throw .usage("\(origin): record must be true or false, not \(value.quotedForMessage)") }
            record = flag
        default:
            if try regions.apply(key: key, value: value, origin: origin) { return }
            if try mqtt.apply(key: key, value: value, origin: origin) { return }
            if try uplinks.apply(key: key, value: value, origin: origin) { return }
            if try motion.apply(key: key, value: value, origin: origin) { return }
            guard try http.apply(key: key, value: value, origin: origin) else {
                throw .usage("\(origin): unknown setting \(key.quotedForMessage)")
            }
        }
    }

    /// The line up to its comment: `#` starts one at the line's start or after white
    /// space, as in a shell, so that a value may hold `#` (`mqtt-topic = owntracks/#` is
    /// then refused for its wildcard instead of silently becoming `owntracks/`).
    static func withoutComment(_ line: Substring) -> Substring {
        var previous: Character = " "
        for index in line.indices {
            if line[index] == "#" && (previous == " " || previous == "\t") { return line[..<index] }
            previous = line[index]
        }
        return line
    }

    /// Applies a configuration file's text: UTF-8, with or without a byte order mark,
    /// lines ending in LF or CRLF. A key set twice is an error, not a silent override.
    mutating func apply(file text: String, path: String) throws(LocationError) {
        var body = Substring(text)
        if body.first == "\u{FEFF}" { body = body.dropFirst() }
        var seen: [String: Int] = [:]
        // Split on LF only: Swift treats "\r\n" as one Character, which a split on "\n" would not see.
        for (number, rawLine) in body.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated()
        {
            var scalars = rawLine
            if scalars.last == "\r" { scalars = scalars.dropLast() }
            let line = Self.withoutComment(Substring(scalars)).trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            let origin = "\(path):\(number + 1)"
            guard let equals = line.firstIndex(of: "=") else {
                throw .usage("\(origin): expected 'key = value', found \(line.quotedForMessage)")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            if let first = seen[key], key != "uplink" {
                throw .usage("\(origin): \(key.quotedForMessage) is already set on line \(first); set it once")
            }
            seen[key] = number + 1
            try apply(
                key: key, value: line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces),
                origin: origin)
        }
    }

    /// `auto`, `gpsd`, `simulated` or `replay FILE`.
    static func parseSource(_ words: [String], origin: String) throws(LocationError) -> Source {
        switch words.first {
        case "auto" where words.count == 1: return .auto
        case "gpsd" where words.count == 1: return .gpsd
        case "simulated" where words.count == 1: return .simulated
        case "replay" where words.count == 2: return .replay(path: words[1])
        case "replay": throw .usage("\(origin): 'replay' needs one file: --source replay FILE")
        default:
            throw .usage(
                "\(origin): source must be auto, gpsd, simulated or replay FILE, not \((words.joined(separator: " ")).quotedForMessage)"
            )
        }
    }

    /// `HOST`, `HOST:PORT`, `[IPV6]:PORT` or `:PORT`; the port defaults to gpsd's 2947.
    /// `naming` is the setting errors name; `allowsPortZero` lets the kernel choose (a listener).
    static func parseAddress(
        _ text: String, origin: String, naming name: String = "gpsd", defaultPort: Int = 2947,
        allowsPortZero: Bool = false
    ) throws(LocationError) -> (host: String, port: Int) {
        var host = Substring(text)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else {
                throw .usage("\(origin): \(name) address \(text.quotedForMessage) has '[' without ']'")
            }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else {
                    throw .usage("\(origin): \(name) address \(text.quotedForMessage) is not HOST:PORT")
                }
                portText = rest.dropFirst()
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard host.firstIndex(of: ":") == colon else {
                throw .usage(
                    "\(origin): write an IPv6 \(name) address in brackets, as [\(text.prefix(60))]:\(defaultPort)")
            }
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        var port = defaultPort
        if let portText {
            guard let value = Int(portText), ((allowsPortZero ? 0 : 1)...65535).contains(value) else {
                throw .usage(
                    "\(origin): \(name) port must be a number from 1 to 65535, not \(portText.quotedForMessage)")
            }
            port = value
        }
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || ".-_:".contains($0) }) else {
            throw .usage("\(origin): \(host.quotedForMessage) is not a host name or address")
        }
        return (host.isEmpty ? "localhost" : String(host), port)
    }

    /// A comma-separated list of zoom levels from 0 to 22.
    static func parseZooms(_ text: String, origin: String) throws(LocationError) -> [Int] {
        var zooms: [Int] = []
        for item in text.split(separator: ",") {
            guard let zoom = Int(item.trimmingCharacters(in: .whitespaces)), (0...22).contains(zoom) else {
                throw .usage(
                    "\(origin): zooms must be numbers from 0 to 22 separated by commas, not \(text.quotedForMessage)")
            }
            if !zooms.contains(zoom) { zooms.append(zoom) }
        }
        guard !zooms.isEmpty else { throw .usage("\(origin): zooms must name at least one zoom level") }
        return zooms.sorted()
    }
}
