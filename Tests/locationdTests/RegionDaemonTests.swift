import Foundation
import LocationRegions
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// Region monitoring in a real daemon: the simulator's fixes, a real hook, real SIGHUPs.
@Suite(.timeLimit(.minutes(5)))
struct RegionDaemonTests {
    /// A circle of 1000 km around Munich, where the simulator drives.
    static let bavaria =
        #"{"type":"Feature","id":"bavaria","properties":{"name":"Bavaria","radius":1000000},"geometry":{"type":"Point","coordinates":[11.5,48.1]}}"#
    static let faroe =
        #"{"type":"Feature","id":"faroe","properties":{"name":"Faroe","radius":50000},"geometry":{"type":"Point","coordinates":[-7,62]}}"#

    static func collection(_ features: String...) -> String {
        #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}"
    }

    @Test func entersRunsTheHookAnswersAndReloadsOnSIGHUP() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(
            atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // A previous run, outside every region: the first fix in Bavaria is an enter.
        try #"{"inside":[],"pendingSince":{},"settled":true}"#.write(
            toFile: data + "/regionMembership.json", atomically: true, encoding: .utf8)
        let regions = directory.path + "/regions.geojson"
        try Self.collection(Self.bavaria).write(toFile: regions, atomically: true, encoding: .utf8)
        let hookOutput = directory.path + "/entered"
        let config = directory.path + "/locationd.conf"
        try """
        source = simulated
        regions = \(regions)
        on-enter = /bin/sh -c 'printenv LOCATIOND_EVENT LOCATIOND_REGION_ID LOCATIOND_SIMULATED > "$0"' \(hookOutput)
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcess(dataDirectory: data, arguments: ["--config", config])

        try await waitUntil(seconds: 30) {
            (try? String(contentsOfFile: hookOutput, encoding: .utf8)) == "enter\nbavaria\n1\n"
        }
        let answer = try #require(try ControlClient.askPatiently("?REGIONS;", socketPath: daemon.socketPath))
        #expect(answer == #"{"class":"REGIONS","file":"\#(regions)","count":1,"inside":["bavaria"],"pending":[]}"#)
        #expect(daemon.stderr.contains(#"entered region bavaria ("Bavaria") at"#))

        try "{\"type\":\"FeatureCollection\"".write(toFile: regions, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try await waitUntil(seconds: 20) { daemon.stderr.contains("keeping the 1 regions loaded before") }
        #expect(daemon.process.isRunning)

        try Self.collection(Self.bavaria, Self.faroe).write(toFile: regions, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try await waitUntil(seconds: 20) { daemon.stderr.contains("reloaded 2 regions from \(regions)") }
        let reloaded = try #require(try ControlClient.askPatiently("?REGIONS;", socketPath: daemon.socketPath))
        #expect(reloaded.contains(#""count":2,"inside":["bavaria"]"#))
        // `locationd regions` asks the daemon, which names its region file.
        let fromDaemon = try await runLocationd(["regions", "--data-dir", data, "--json"])
        #expect(
            fromDaemon.stdout
                == #"{"class":"REGIONS","file":"\#(regions)","from":"daemon","regions":[{"id":"bavaria","name":"Bavaria","type":"circle","inside":true},{"id":"faroe","name":"Faroe","type":"circle","inside":false}]}"#
                + "\n")

        #expect(try await daemon.stop(within: 20).status == 0)
        let stored = try JSONDecoder().decode(
            MembershipState.self, from: Data(contentsOf: URL(fileURLWithPath: data + "/regionMembership.json")))
        #expect(stored.inside == ["bavaria"])
        let listed = try await runLocationd(["regions", "--data-dir", data, "--regions", regions])
        #expect(listed.stdout.hasPrefix("in    bavaria  \"Bavaria\"  circle 1000000 m"))
    }

    @Test func aBadRegionFileAtStartIsExit64() async throws {
        let directory = try TemporaryDirectory()
        let regions = directory.path + "/regions.geojson"
        try "not json".write(toFile: regions, atomically: true, encoding: .utf8)
        try await expectRunRefuses(
            ["--regions", regions], saying: "\(regions): not GeoJSON: expected '{' at byte 0, found 'n'")
    }
}

/// `?WATCH;` with regions: the REGION line of a transition follows its fix's TPV line.
@Suite(.timeLimit(.minutes(10)))
struct RegionWatchTests {
    @Test func aRegionLineFollowsTheFixThatMadeIt() async throws {
        let directory = try TemporaryDirectory()
        let regions = directory.path + "/regions.geojson"
        try RegionDaemonTests.collection(
            #"{"type":"Feature","id":"home","properties":{"name":"Home","radius":100},"geometry":{"type":"Point","coordinates":[13.4,52.5]}}"#
        ).write(toFile: regions, atomically: true, encoding: .utf8)
        try #"{"inside":[],"pendingSince":{},"settled":true}"#.write(
            toFile: directory.path + "/regionMembership.json", atomically: true, encoding: .utf8)
        var configuration = RegionConfiguration()
        configuration.regionsPath = regions
        let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
        let service = try RegionMonitoring(
            configuration: configuration, dataDirectory: directory.path, logger: .init(label: "test"))
        var context = try DaemonContext.testing(directory: directory.path, deviceLocation: deviceLocation)
        context.regions = service
        let responder = ControlResponder(context: context)
        let lines = Mailbox<String>()
        let stop = responder.watch { lines.post($0) }
        defer { stop() }
        let membership = service.monitor.attach(to: deviceLocation)
        defer { membership.cancel() }
        let time = Date(timeIntervalSince1970: 1_795_000_000)
        deviceLocation ~> Location(time: time, mode: .threeD, lat: 52.6, lon: 13.4, source: .gpsd)
        deviceLocation ~> Location(time: time + 1, mode: .threeD, lat: 52.5, lon: 13.4, source: .gpsd)
        _ = try await lines.next { $0.contains(#""lat":52.600000000"#) }
        let second = try await lines.next()
        #expect(second.hasPrefix(#"{"class":"TPV""#) && second.contains(#""lat":52.500000000"#))
        let region = try await lines.next()
        #expect(
            region
                == #"{"class":"REGION","event":"enter","region":"home","name":"Home","time":"2026-11-18T11:06:41.000Z","lat":52.500000000,"lon":13.400000000}"#
        )
        let answer = try #require(responder.regions)
        #expect(answer().contains(#""inside":["home"]"#))
    }
}
