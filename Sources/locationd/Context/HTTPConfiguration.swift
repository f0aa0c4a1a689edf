import Foundation
import LocationState
import Logging

/// The HTTP server's settings: `http = HOST:PORT | off`, `http-token-file = PATH`,
/// `http-basemap = URL` (a tile URL template the page draws under its layers; none by default)
/// and `http-allowed-hosts = NAME, ...` (more names the server answers to, ``HTTPAllowedHosts``).
///
/// The server listens on loopback by default (``defaultPort``, 8947: clear of gpsd's
/// 2947 and its DGPSIP 2948, and of the usual 8000/8080/8443). Any other address
/// serves only requests carrying the bearer token read from `http-token-file`; a
/// non-loopback address without one is a configuration error (exit 64).
struct HTTPConfiguration: Equatable, Sendable {
    /// The port when `http` names none.
    static let defaultPort = 8947

    /// Whether the server runs at all (`http = off` turns it off).
    var enabled = true
    var host = "127.0.0.1"
    /// The port; 0 lets the kernel choose one (the URL logged at start names it).
    var port = defaultPort
    /// The file that holds the bearer token.
    var tokenFile: String?
    /// The basemap's tile URL template, checked by ``basemapOrigin(of:)``: `nil` draws none.
    var basemap: String?
    /// Names besides the bound address and `localhost` that requests may carry in `Host`.
    var allowedHosts: [String] = []

    /// Whether `host` is a loopback address or name, which is served without a token.
    var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The base URL, as logged at start.
    var url: String { Self.url(host: host, port: port) }

    /// The base URL a browser on this machine opens: a wildcard address (`0.0.0.0`, `::`)
    /// is reached through loopback.
    var localURL: String {
        Self.url(host: host == "0.0.0.0" ? "127.0.0.1" : host == "::" ? "::1" : host, port: port)
    }

    private static func url(host: String, port: Int) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/"
    }

    /// The settings' names whose values differ from `other`'s.
    func keysDiffering(from other: HTTPConfiguration) -> [String] {
        var keys: [String] = []
        if (enabled, host, port) != (other.enabled, other.host, other.port) { keys.append("http") }
        if tokenFile != other.tokenFile { keys.append("http-token-file") }
        if basemap != other.basemap { keys.append("http-basemap") }
        if allowedHosts != other.allowedHosts { keys.append("http-allowed-hosts") }
        return keys
    }

    /// The origin (`https://host[:port]`) of a basemap URL template, which the page's
    /// Content-Security-Policy allows images from; `nil` when `template` is not an `http`
    /// or `https` URL with a host and each of `{z}`, `{x}` and `{y}`, or holds another
    /// `{…}` placeholder, white space, a quote, `;` or `,` (which would break the policy).
    static func basemapOrigin(of template: String) -> String? {
        guard template.utf8.count <= 1024, ["{z}", "{x}", "{y}"].allSatisfy(template.contains) else { return nil }
        let filled = template.replacingOccurrences(of: "{z}", with: "0").replacingOccurrences(of: "{x}", with: "0")
            .replacingOccurrences(of: "{y}", with: "0")
        guard !filled.contains(where: { $0.isWhitespace || "{}\"'`;,<>\\".contains($0) }),
            let url = URLComponents(string: filled), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
            url.user == nil, url.password == nil
        else { return nil }
        let shownHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost)\(url.port.map { ":\($0)" } ?? "")"
    }

    /// The bearer token, read from ``tokenFile``; `nil` when none is configured. A file
    /// that other users may read is used, with one warning in the log.
    ///
    /// - Throws: `usage` (exit 64) when the address is not loopback and no token file is
    ///   named, or when the file is empty; `fileNotFound`/`fileUnreadable` when it cannot be read.
    func loadToken(logger: Logger) throws(LocationError) -> [UInt8]? {
        guard enabled else { return nil }
        guard let tokenFile else {
            if isLoopback { return nil }
            throw .usage(
                "http: serving \(host), which is not a loopback address, needs a bearer token: set http-token-file to a file that holds one"
            )
        }
        let data = try ConfiguredFile.secret(at: tokenFile, naming: "http-token-file", logger: logger)
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.utf8.count >= 16 else {
            throw .usage("\(tokenFile): the http token must be at least 16 characters long")
        }
        return Array(token.utf8)
    }
}
