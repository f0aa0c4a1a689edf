import Foundation
import LocationState

/// The HTTP server's settings: `http = HOST:PORT | off` and `http-token-file = PATH`.
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

    /// Whether `host` is a loopback address or name, which is served without a token.
    var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The base URL, as logged at start.
    var url: String { "http://\(host.contains(":") ? "[\(host)]" : host):\(port)/" }

    /// Applies one of the HTTP settings; returns false for a key that is not one of them.
    mutating func apply(key: String, value: String, origin: String) throws(LocationError) -> Bool {
        switch key {
        case "http":
            if value == "off" {
                enabled = false
                return true
            }
            let address = try DaemonConfiguration.parseAddress(
                value, origin: origin, naming: "http", defaultPort: Self.defaultPort, allowsPortZero: true)
            (enabled, host, port) = (true, address.host == "localhost" ? "127.0.0.1" : address.host, address.port)
        case "http-token-file":
            tokenFile = value
        default:
            return false
        }
        return true
    }

    /// The settings' names whose values differ from `other`'s.
    func keysDiffering(from other: HTTPConfiguration) -> [String] {
        var keys: [String] = []
        if (enabled, host, port) != (other.enabled, other.host, other.port) { keys.append("http") }
        if tokenFile != other.tokenFile { keys.append("http-token-file") }
        return keys
    }

    /// The bearer token, read from ``tokenFile``; `nil` when none is configured.
    ///
    /// - Throws: `usage` (exit 64) when the address is not loopback and no token file is
    ///   named, or when the file is empty; `fileNotFound`/`fileUnreadable` when it cannot be read.
    func loadToken() throws(LocationError) -> [UInt8]? {
        guard enabled else { return nil }
        guard let tokenFile else {
            if isLoopback { return nil }
            throw .usage(
                "http: serving \(host), which is not a loopback address, needs a bearer token: set http-token-file to a file that holds one"
            )
        }
        guard FileManager.default.fileExists(atPath: tokenFile) else { throw .fileNotFound(path: tokenFile) }
        guard let data = FileManager.default.contents(atPath: tokenFile) else {
            throw .fileUnreadable(path: tokenFile, reason: "permission denied")
        }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.utf8.count >= 16 else {
            throw .usage("\(tokenFile): the http token must be at least 16 characters long")
        }
        return Array(token.utf8)
    }
}
