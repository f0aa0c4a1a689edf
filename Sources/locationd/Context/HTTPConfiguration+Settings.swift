import LocationState

/// The HTTP keys of the configuration file and command line.
extension HTTPConfiguration {
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
        case "http-basemap":
            if value == "off" {
                basemap = nil
                return true
            }
            guard Self.basemapOrigin(of: value) != nil else {
                throw .usage(
                    "\(origin): http-basemap must be an http or https URL with {z}, {x} and {y}, such as https://tile.example.org/{z}/{x}/{y}.png, not \(value.quotedForMessage)"
                )
            }
            basemap = value
        case "http-allowed-hosts":
            let names = value.split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
            let isHostCharacter = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || ".-_:[]".contains(c)) }
            guard !names.isEmpty, names.allSatisfy({ $0.utf8.count <= 253 && $0.allSatisfy(isHostCharacter) }) else {
                throw .usage(
                    "\(origin): http-allowed-hosts must be host names or addresses separated by commas, such as gps.example.org, not \(value.quotedForMessage)"
                )
            }
            allowedHosts = names
        default:
            return false
        }
        return true
    }
}
