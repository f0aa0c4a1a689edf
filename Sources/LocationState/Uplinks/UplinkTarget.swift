import Foundation
import LocationState

/// One server the fixes are sent to: `PROTOCOL=URL` and options, as the `uplink` setting
/// writes it (`osmand=http://traccar.local:5055/?id=van history=all`).
///
/// Secrets never come from the setting's own text when it was given on the command line
/// (every user sees a process's arguments): a password or token is read from a file
/// (`password-file=`, `token-file=`) or an environment variable (`password-env=`,
/// `token-env=`). Wherever a URL is shown, its password and the values of its secret
/// query fields are masked (``maskedURL``).
public struct UplinkTarget: Sendable, Hashable {
    /// What the target is called in the status and the log; unique among the targets.
    public var name: String
    public var `protocol`: UplinkProtocol
    /// The URL requests go to (for OsmAnd, the fields are added to its query).
    public var url: URL
    /// The device id the server knows this device by (OsmAnd's `id`, OwnTracks' device,
    /// Overland's `device_id`).
    public var device: String
    /// The user (OwnTracks' `X-Limit-U` and topic; Basic authentication with a password).
    public var user: String?
    /// Where the Basic authentication's password comes from.
    public var password: UplinkSecret?
    /// Where the bearer token comes from (`Authorization: Bearer`).
    public var token: UplinkSecret?
    /// Which fixes the target gets after an outage.
    public var history: UplinkHistory
    /// A CA certificate file (PEM) trusted beside the system's store.
    public var caFile: String?
    /// The URL an OsmAnd request starts with: the target's URL without its own `id` or
    /// `deviceid` (the query names the device once, as `device`), up to where the fields go.
    let osmAndPrefix: String

    public init(
        name: String, protocol: UplinkProtocol, url: URL, device: String, user: String? = nil,
        password: UplinkSecret? = nil, token: UplinkSecret? = nil, history: UplinkHistory? = nil, caFile: String? = nil
    ) {
        self.name = name
        self.protocol = `protocol`
        self.url = url
        self.device = device
        self.user = user
        self.password = password
        self.token = token
        self.history = history ?? (Self.isHomeAssistantWebhook(url) ? .latest : .all)
        self.caFile = caFile
        osmAndPrefix = Self.osmAndPrefix(url)
    }

    private static func osmAndPrefix(_ url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let kept = (components?.percentEncodedQueryItems ?? []).filter { $0.name != "id" && $0.name != "deviceid" }
        components?.percentEncodedQuery = nil
        let base = components?.string ?? url.absoluteString
        let own = kept.map { $0.name + ($0.value.map { "=" + $0 } ?? "") }
        return base + "?" + own.map { $0 + "&" }.joined()
    }

    /// Whether `url` is a Home Assistant webhook (`/api/webhook/ID`): Home Assistant keeps
    /// only the newest position it was sent, by arrival, and no history.
    public static func isHomeAssistantWebhook(_ url: URL) -> Bool {
        url.path.hasPrefix("/api/webhook/")
    }

    /// Whether the server takes the position it shows as current from the fix that
    /// arrived last rather than from the newest fix time (docs/uplink-servers.md):
    /// Home Assistant's webhooks. Such a target gets its backlog in order, the newest last;
    /// the others get the newest first, then the backlog.
    public var keepsCurrentByArrival: Bool { Self.isHomeAssistantWebhook(url) }

    /// Query fields whose values are secrets: masked wherever a URL is shown.
    public static let secretQueryFields: Set<String> = [
        "api_key", "apikey", "key", "token", "access_token", "password", "pass", "secret",
    ]

    /// The URL as the status and the log show it: the userinfo's password and the values
    /// of secret query fields (``secretQueryFields``) as `***`.
    public var maskedURL: String { Self.masked(url) }

    /// `url` with its secrets masked (see ``maskedURL``).
    public static func masked(_ url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "(a URL)" }
        if components.password != nil { components.password = "***" }
        components.queryItems = components.queryItems?.map { item in
            secretQueryFields.contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: "***") : item
        }
        return components.string ?? "(a URL)"
    }
}

/// Which fixes a target gets after an outage.
public enum UplinkHistory: String, Sendable, Hashable, CaseIterable {
    /// Every fix, in order (the newest first where the server keeps its current position
    /// by fix time, so that a live view is current at once).
    case all
    /// Only the newest fix: what was missed is skipped (counted). The default for a
    /// server that keeps no history (Home Assistant).
    case latest
}

/// A secret named by a setting: a file's first line, or an environment variable.
public enum UplinkSecret: Sendable, Hashable {
    case file(String)
    case environment(String)

    /// The secret's value, read now.
    ///
    /// - Throws: ``LocationError/usage(_:)`` naming the file or variable (never the value)
    ///   when it cannot be read or is empty.
    public func value(environment: [String: String] = ProcessInfo.processInfo.environment) throws(LocationError)
        -> String
    {
        switch self {
        case .file(let path):
            let data = try ConfiguredFile.contents(of: path, maxBytes: 64 * 1024)
            let text = String(decoding: data, as: UTF8.self)
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            let value = line.trimmingCharacters(in: .whitespaces)
            guard !value.isEmpty else { throw .usage("\(path): the secret file is empty") }
            return value
        case .environment(let name):
            guard let value = environment[name], !value.isEmpty else {
                throw .usage("the environment variable \(name) is not set or empty")
            }
            return value
        }
    }
}
