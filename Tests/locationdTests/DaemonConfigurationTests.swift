import LocationState
import Testing

@testable import locationd

@Suite struct DaemonConfigurationTests {
    @Test(arguments: [
        ("localhost", "localhost", 2947),
        ("gps.local:3000", "gps.local", 3000),
        (":2948", "localhost", 2948),
        ("[::1]:2950", "::1", 2950),
        ("[fe80::1]", "fe80::1", 2947),
        ("127.0.0.1", "127.0.0.1", 2947),
    ])
    func gpsdAddresses(text: String, host: String, port: Int) throws {
        let address = try DaemonConfiguration.parseAddress(text, origin: "--gpsd")
        #expect(address.host == host)
        #expect(address.port == port)
    }

    @Test(arguments: ["host:0", "host:65536", "host:http", "::1", "[::1", "[::1]2947", "a b:1", "h;rm:1"])
    func badGpsdAddressesAreUsageErrors(text: String) {
        #expect(throws: LocationError.self) { try DaemonConfiguration.parseAddress(text, origin: "--gpsd") }
        do {
            _ = try DaemonConfiguration.parseAddress(text, origin: "--gpsd")
        } catch {
            #expect(error.kind == .usage)
            #expect(error.message.hasPrefix("--gpsd: "))
        }
    }

    @Test func fileSettingsApplyAndFlagsComeLater() throws {
        var configuration = DaemonConfiguration(dataDirectory: "/default")
        try configuration.apply(
            file: """
                # locationd.conf
                source = replay /tmp/walk.nmea
                gpsd = gps.local:3000   # the boat's receiver
                zooms = 17, 12,17
                freshness-timeout = 2.5s

                log-level = debug
                record = yes
                """, path: "locationd.conf")
        #expect(configuration.source == .replay(path: "/tmp/walk.nmea"))
        #expect(configuration.gpsdHost == "gps.local")
        #expect(configuration.gpsdPort == 3000)
        #expect(configuration.zooms == [12, 17])
        #expect(configuration.freshnessTimeoutSeconds == 2.5)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.record)
        #expect(configuration.resolvedSocketPath == "/default/control.sock")
        try configuration.apply(key: "source", value: "simulated", origin: "--source")
        #expect(configuration.source == .simulated)
    }

    @Test(arguments: [
        ("zooms = 23", "locationd.conf:1: zooms"),
        ("colour = blue", "locationd.conf:1: unknown setting 'colour'"),
        ("just words", "locationd.conf:1: expected 'key = value'"),
        ("freshness-timeout = -1", "locationd.conf:1: freshness-timeout"),
        ("source = replay", "locationd.conf:1: 'replay' needs one file"),
        ("log-level = loud", "locationd.conf:1: log-level must be one of"),
    ])
    func badFileLinesNameTheLine(line: String, messagePrefix: String) {
        var configuration = DaemonConfiguration(dataDirectory: "/d")
        do {
            try configuration.apply(file: line, path: "locationd.conf")
            Issue.record("accepted '\(line)'")
        } catch {
            #expect(error.message.hasPrefix(messagePrefix))
        }
    }
}
