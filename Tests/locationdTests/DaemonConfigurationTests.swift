import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

@Suite(.timeLimit(.minutes(10))) struct DaemonConfigurationTests {
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

    @Test func aFileWithBOMAndCRLFLinesReadsLikeAPlainOne() throws {
        var configuration = DaemonConfiguration(dataDirectory: "/d")
        try configuration.apply(
            file: "\u{FEFF}zooms = 12\r\n# comment\r\nrecord = yes\r\nsocket = /run/l.sock\r\n", path: "l.conf")
        #expect(configuration.zooms == [12])
        #expect(configuration.record)
        #expect(configuration.socketPath == "/run/l.sock")
    }

    @Test func aHashStartsACommentOnlyAtTheStartOrAfterWhiteSpace() throws {
        var configuration = DaemonConfiguration(dataDirectory: "/d")
        try configuration.apply(
            file: "#zooms = 3\nsocket = /run/l#1.sock # the socket\nzooms = 12\t# tabs too\n", path: "l.conf")
        #expect(configuration.socketPath == "/run/l#1.sock")
        #expect(configuration.zooms == [12])
        // A wildcard topic is refused for what it is, not cut to `owntracks/`.
        #expect {
            try configuration.apply(file: "mqtt = mqtt://broker\nmqtt-topic = owntracks/#\n", path: "m.conf")
        } throws: { error in
            (error as? LocationError)?.message.contains("#") == true
        }
    }

    @Test(arguments: [
        ("zooms = 12\nzooms = 14", "l.conf:2: 'zooms' is already set on line 1"),
        ("data-dir =", "l.conf:1: data-dir needs a value"),
        ("socket =   # none", "l.conf:1: socket needs a value"),
        ("freshness-timeout = 0.0005", "l.conf:1: freshness-timeout must be a number of seconds from 0.05 to 86400"),
        ("freshness-timeout = 1e16", "l.conf:1: freshness-timeout must be a number of seconds from 0.05 to 86400"),
        ("freshness-timeout = nan", "l.conf:1: freshness-timeout must be"),
    ])
    func settingsThatMakeNoSenseAreRefused(text: String, message: String) {
        var configuration = DaemonConfiguration(dataDirectory: "/d")
        #expect {
            try configuration.apply(file: text, path: "l.conf")
        } throws: { error in
            (error as? LocationError)?.message.hasPrefix(message) == true
        }
    }

    @Test func aHugeBadValueIsQuotedShortly() throws {
        var configuration = DaemonConfiguration(dataDirectory: "/d")
        let value = String(repeating: "x", count: 10_000_000)
        do {
            try configuration.apply(file: "log-level = \(value)", path: "l.conf")
            Issue.record("accepted a 10 MB log level")
        } catch {
            #expect(error.message.count < 300)
            #expect(error.message.contains("(10000000 bytes)"))
        }
    }

    @Test func flagsBeatTheEnvironmentWhichBeatsTheFile() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/locationd.conf"
        try "zooms = 10\nfreshness-timeout = 7\nlog-level = debug\n".write(
            toFile: file, atomically: true, encoding: .utf8)
        var source = DaemonConfigurationSource()
        source.explicitFile = file
        source.environment = ["LOCATIOND_ZOOMS": "11", "LOCATIOND_FRESHNESS_TIMEOUT": "8", "HOME": "/root"]
        source.flags = [("zooms", "12")]
        let configuration = try source.resolve()
        #expect(configuration.zooms == [12])
        #expect(configuration.freshnessTimeoutSeconds == 8)
        #expect(configuration.logLevel == .debug)

        source.environment = ["LOCATIOND_ZOOM": "11"]
        #expect {
            try source.resolve()
        } throws: { error in
            (error as? LocationError)?.message == "$LOCATIOND_ZOOM: unknown setting 'zoom'"
        }
    }

    @Test func aConfigurationFileLargerThanAMegabyteIsRefused() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/locationd.conf"
        try Data(repeating: UInt8(ascii: "#"), count: DaemonConfigurationSource.maxFileBytes + 1).write(
            to: URL(fileURLWithPath: file))
        var source = DaemonConfigurationSource()
        source.explicitFile = file
        source.environment = [:]
        #expect {
            try source.resolve()
        } throws: { error in
            (error as? LocationError)?.message.contains("larger than 1048576 bytes") == true
        }
    }
}
