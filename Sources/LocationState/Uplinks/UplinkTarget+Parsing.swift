import Foundation
import LocationState

extension UplinkTarget {
    /// The options a target takes after its URL, as `key=value` words.
    public static let optionNames = [
        "name", "device", "user", "password-file", "password-env", "token-file", "token-env", "history", "ca-file",
    ]

    /// Reads one `uplink` setting: `PROTOCOL=URL` then options as `key=value` words
    /// separated by white space (``optionNames``).
    ///
    /// - Parameters:
    ///   - text: the setting's value.
    ///   - origin: where it came from, for errors (`--uplink`, `$LOCATIOND_UPLINK`, `FILE:LINE`).
    ///   - visible: whether the text is on the command line, where every user of the machine
    ///     can read it: then a password in the URL or a secret query field is refused.
    ///   - hostName: the default device id (the machine's name).
    /// - Throws: ``LocationError/usage(_:)`` with one line naming `origin`; no secret is quoted.
    public static func parse(
        _ text: String, origin: String, visible: Bool, hostName: String = ProcessInfo.processInfo.hostName
    ) throws(LocationError) -> UplinkTarget {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard let first = words.first, let equals = first.firstIndex(of: "=") else {
            throw .usage("\(origin): uplink must be PROTOCOL=URL (\(protocolList)), then options")
        }
        let protocolName = String(first[..<equals])
        guard let kind = UplinkProtocol(rawValue: protocolName.lowercased()) else {
            throw .usage("\(origin): uplink protocol must be \(protocolList), not '\(protocolName.prefix(40))'")
        }
        let url = try parseURL(String(first[first.index(after: equals)...]), origin: origin, visible: visible)
        var options: [String: String] = [:]
        for word in words.dropFirst() {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw .usage("\(origin): uplink option '\(word.prefix(40))' is not key=value")
            }
            let key = String(word[..<equals])
            guard optionNames.contains(key) else {
                throw .usage(
                    "\(origin): unknown uplink option '\(key.prefix(40))' (options: \(optionNames.joined(separator: ", ")))"
                )
            }
            guard options[key] == nil else { throw .usage("\(origin): uplink option \(key) is given twice") }
            options[key] = String(word[word.index(after: equals)...])
        }
        var history: UplinkHistory?
        if let value = options["history"] {
            guard let parsed = UplinkHistory(rawValue: value) else {
                throw .usage("\(origin): uplink history must be all or latest, not '\(value.prefix(40))'")
            }
            history = parsed
        }
        let device = options["device"] ?? defaultDevice(kind, url: url, hostName: hostName)
        guard !device.isEmpty, device.utf8.count <= 128 else {
            throw .usage("\(origin): uplink device must be 1 to 128 bytes")
        }
        let name = options["name"] ?? kind.rawValue
        guard !name.isEmpty, name.utf8.count <= 64,
            name.allSatisfy({ $0.isLetter || $0.isNumber || "-_.".contains($0) })
        else {
            throw .usage("\(origin): uplink name must be 1 to 64 letters, digits, '-', '_' or '.'")
        }
        return UplinkTarget(
            name: name, protocol: kind, url: url, device: device,
            user: options["user"] ?? URLComponents(url: url, resolvingAgainstBaseURL: false)?.user,
            password: try secret(options, file: "password-file", environment: "password-env", origin: origin),
            token: try secret(options, file: "token-file", environment: "token-env", origin: origin),
            history: history, caFile: options["ca-file"])
    }

    private static var protocolList: String { UplinkProtocol.allCases.map(\.rawValue).joined(separator: ", ") }

    /// An http or https URL with a host; with `visible`, without a password or a secret field.
    private static func parseURL(_ text: String, origin: String, visible: Bool) throws(LocationError) -> URL {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            ["http", "https"].contains(scheme), let host = components.host, !host.isEmpty,
            let url = components.url
        else {
            throw .usage("\(origin): uplink URL must be http:// or https:// with a host, not '\(masked(text))'")
        }
        if let port = components.port, !(1...65535).contains(port) {
            throw .usage("\(origin): uplink URL's port must be from 1 to 65535")
        }
        if visible {
            if components.password != nil {
                throw .usage(
                    "\(origin): a password in the URL is visible to every user in the process list; use password-file= or password-env="
                )
            }
            if let field = components.queryItems?.first(where: { secretQueryFields.contains($0.name.lowercased()) }) {
                throw .usage(
                    "\(origin): the URL's \(field.name) is visible to every user in the process list; use token-file= or token-env=, or the configuration file"
                )
            }
        }
        return url
    }

    /// A URL text with its secrets masked, also when it is not a usable URL.
    private static func masked(_ text: String) -> String {
        if let url = URL(string: text), url.scheme != nil { return masked(url).prefix(80).escapedForTerminal }
        return text.contains("@") ? "(a URL with userinfo)" : String(text.prefix(80)).escapedForTerminal
    }

    /// OsmAnd's `id` from the URL's query when there is one (Traccar's documented form,
    /// `http://server:5055/?id=DEVICE`), else the machine's name.
    private static func defaultDevice(_ kind: UplinkProtocol, url: URL, hostName: String) -> String {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        if kind == .osmand, let id = items.first(where: { $0.name == "id" || $0.name == "deviceid" })?.value,
            !id.isEmpty
        {
            return id
        }
        return hostName.split(separator: ".").first.map(String.init) ?? "locationd"
    }

    private static func secret(
        _ options: [String: String], file: String, environment: String, origin: String
    ) throws(LocationError) -> UplinkSecret? {
        switch (options[file], options[environment]) {
        case (nil, nil): return nil
        case (let path?, nil): return .file(path)
        case (nil, let name?): return .environment(name)
        case (.some, .some): throw .usage("\(origin): uplink options \(file) and \(environment) exclude each other")
        }
    }
}
