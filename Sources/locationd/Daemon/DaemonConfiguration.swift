import Foundation
import LocationState
import Logging

/// Everything `locationd run` needs to know, from flags and the configuration file.
///
/// The file is plain `key = value` lines, `#` starts a comment, keys are the long
/// flag names of `locationd run` (`source`, `gpsd`, `data-dir`, `socket`, `zooms`,
/// `freshness-timeout`, `log-level`, `record`). A flag on the command line wins over
/// the file; the file wins over the built-in default.
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
    var zooms: [Int] = [14, 17]
    var freshnessTimeoutSeconds: Double = 5
    var logLevel: Logger.Level = .info
    var record = false

    /// The control socket: `--socket`, or `control.sock` in the data directory.
    var resolvedSocketPath: String { socketPath ?? dataDirectory + "/control.sock" }

    /// Applies one `key = value` setting; `origin` names where it came from, for errors.
    mutating func apply(key: String, value: String, origin: String) throws(LocationError) {
        switch key {
        case "source":
            source = try Self.parseSource(value.split(separator: " ").map(String.init), origin: origin)
        case "gpsd":
            (gpsdHost, gpsdPort) = try Self.parseAddress(value, origin: origin)
        case "data-dir":
            dataDirectory = value
        case "socket":
            socketPath = value
        case "zooms":
            zooms = try Self.parseZooms(value, origin: origin)
        case "freshness-timeout":
            guard let seconds = Double(value.hasSuffix("s") ? String(value.dropLast()) : value), seconds > 0,
                seconds.isFinite
            else {
                throw .usage("\(origin): freshness-timeout must be a positive number of seconds, not '\(value)'")
            }
            freshnessTimeoutSeconds = seconds
        case "log-level":
            guard let level = Logger.Level(rawValue: value.lowercased()) else {
                throw .usage(
                    "\(origin): log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not '\(value)'"
                )
            }
            logLevel = level
        case "record":
            guard let flag = ["true": true, "yes": true, "1": true, "false": false, "no": false, "0": false][value]
            else { throw .usage("\(origin): record must be true or false, not '\(value)'") }
            record = flag
        default:
            throw .usage("\(origin): unknown setting '\(key)'")
        }
    }

    /// Applies a configuration file's text.
    mutating func apply(file text: String, path: String) throws(LocationError) {
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.prefix(while: { $0 != "#" }).trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw .usage("\(path):\(number + 1): expected 'key = value', found '\(line)'")
            }
            try apply(
                key: line[..<equals].trimmingCharacters(in: .whitespaces),
                value: line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces),
                origin: "\(path):\(number + 1)")
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
                "\(origin): source must be auto, gpsd, simulated or replay FILE, not '\(words.joined(separator: " "))'")
        }
    }

    /// `HOST`, `HOST:PORT`, `[IPV6]:PORT` or `:PORT`; the port defaults to gpsd's 2947.
    static func parseAddress(_ text: String, origin: String) throws(LocationError) -> (host: String, port: Int) {
        var host = Substring(text)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else {
                throw .usage("\(origin): gpsd address '\(text)' has '[' without ']'")
            }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw .usage("\(origin): gpsd address '\(text)' is not HOST:PORT") }
                portText = rest.dropFirst()
            }
        } else if let colon = host.lastIndex(of: ":") {
            guard host.firstIndex(of: ":") == colon else {
                throw .usage("\(origin): write an IPv6 gpsd address in brackets, as [\(text)]:2947")
            }
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        var port = 2947
        if let portText {
            guard let value = Int(portText), (1...65535).contains(value) else {
                throw .usage("\(origin): gpsd port must be a number from 1 to 65535, not '\(portText)'")
            }
            port = value
        }
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || ".-_:".contains($0) }) else {
            throw .usage("\(origin): '\(host)' is not a host name or address")
        }
        return (host.isEmpty ? "localhost" : String(host), port)
    }

    /// A comma-separated list of zoom levels from 0 to 22.
    static func parseZooms(_ text: String, origin: String) throws(LocationError) -> [Int] {
        var zooms: [Int] = []
        for item in text.split(separator: ",") {
            guard let zoom = Int(item.trimmingCharacters(in: .whitespaces)), (0...22).contains(zoom) else {
                throw .usage("\(origin): zooms must be numbers from 0 to 22 separated by commas, not '\(text)'")
            }
            if !zooms.contains(zoom) { zooms.append(zoom) }
        }
        guard !zooms.isEmpty else { throw .usage("\(origin): zooms must name at least one zoom level") }
        return zooms.sorted()
    }
}
