#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `Host` names the server answers to. A web page whose own name its DNS server
/// points at this machine (DNS rebinding) makes requests that carry that name: they
/// are refused, so that no other site's script reads the location, token or not.
///
/// Answered: the address the server is bound to, `localhost`, `127.0.0.1` and `[::1]`
/// when it is bound to loopback, any address literal when it is bound to every
/// interface (`0.0.0.0`, `::`: an address cannot be rebound, only a name can), this
/// machine's host name then too, and the names of `http-allowed-hosts`. A port in
/// `Host` must be the one the request came in on.
struct HTTPAllowedHosts: Sendable {
    /// Lower-case names and addresses, IPv6 ones in brackets.
    let names: Set<String>
    /// Whether any IPv4 or bracketed IPv6 literal is answered (a wildcard bind).
    let anyAddress: Bool

    init(_ configuration: HTTPConfiguration) {
        var names: Set<String> = ["localhost"]
        let host = configuration.host.lowercased()
        names.insert(host.contains(":") ? "[\(host)]" : host)
        if configuration.isLoopback { names.formUnion(["127.0.0.1", "[::1]"]) }
        anyAddress = host == "0.0.0.0" || host == "::"
        if anyAddress, let machine = Self.machineName() {
            names.insert(machine)
            if let first = machine.split(separator: ".").first { names.insert(String(first)) }
        }
        names.formUnion(configuration.allowedHosts.map { $0.lowercased() })
        self.names = names
    }

    /// Whether a request whose `Host` is `authority`, received on `port`, is answered.
    ///
    /// Read on the header's bytes, ASCII letters lowered: every request passes here, and
    /// `lowercased()` and `Character` searches made a tenth of what a request cost
    /// (docs/performance.md). A name with other than ASCII is lowered as a `String` first.
    func allows(_ authority: String?, port: Int?) -> Bool {
        guard let authority, !authority.isEmpty else { return false }
        var name = Array(authority.utf8)
        if name.allSatisfy({ $0 < 0x80 }) {
            for index in name.indices where name[index] >= UInt8(ascii: "A") && name[index] <= UInt8(ascii: "Z") {
                name[index] |= 0x20
            }
        } else {
            name = Array(authority.lowercased().utf8)
        }
        // `:`, `]` and `.` are single bytes in UTF-8, never part of another character's.
        if name.last != UInt8(ascii: "]"), let colon = name.lastIndex(of: UInt8(ascii: ":")) {
            // RFC 3986's port: digits only (none, or a sign, is refused).
            let digits = name[(colon + 1)...]
            guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return false }
            let given = digits.reduce(0) { $0 * 10 + Int($1 - 48) }
            guard port == nil || given == port else { return false }
            name.removeSubrange(colon...)
        }
        if name.last == UInt8(ascii: "."), name.dropLast().last != UInt8(ascii: ".") { name.removeLast() }
        let host = String(decoding: name, as: UTF8.self)
        if names.contains(host) { return true }
        return anyAddress && Self.isAddressLiteral(host[...])
    }

    /// Whether `name` is a dotted IPv4 address or a bracketed IPv6 one.
    private static func isAddressLiteral(_ name: Substring) -> Bool {
        var address = in6_addr()
        if name.hasPrefix("["), name.hasSuffix("]") {
            return inet_pton(AF_INET6, String(name.dropFirst().dropLast()), &address) == 1
        }
        return inet_pton(AF_INET, String(name), &address) == 1
    }

    /// This machine's name (gethostname(2)), lower case.
    private static func machineName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? nil : name.lowercased()
    }
}
