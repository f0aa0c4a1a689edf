import Foundation
import LocationTestSupport
import Logging
import ServiceLifecycle
import Testing

@testable import LocationRegions
@testable import LocationState
@testable import locationd

/// The daemon's region service: a real region file, a real store. (The daemon's SIGHUP
/// calls ``RegionMonitoring/reload()``; `RegionDaemonTests` sends it for real.)
@Suite(.timeLimit(.minutes(10)))
struct RegionServiceTests {
    static func feature(_ id: String, lat: Double, radius: Double = 100) -> String {
        #"{"type":"Feature","id":"\#(id)","properties":{"name":"\#(id.capitalized)","radius":\#(radius)},"geometry":{"type":"Point","coordinates":[13.4,\#(lat)]}}"#
    }

    static func write(_ features: [String], to path: String) throws {
        try Data((#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}").utf8)
            .write(to: URL(fileURLWithPath: path))
    }

    static func configuration(_ path: String) -> RegionConfiguration {
        var configuration = RegionConfiguration()
        configuration.regionsPath = path
        return configuration
    }

    @Test func aBadOrMissingFileAtStartIsAConfigurationError() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/regions.geojson"
            try Self.write([Self.feature("a", lat: 1), Self.feature("a", lat: 2)], to: path)
            #expect(
                throws: LocationError.usage(
                    "\(path): feature 2 (\"A\", id a): duplicate id 'a', already used by feature 1 (\"A\")")
            ) {
                try RegionMonitoring(
                    configuration: Self.configuration(path), dataDirectory: directory, logger: Logger(label: "test"))
            }
            let missing = directory + "/missing.geojson"
            #expect(throws: LocationError.usage("\(missing): no such file; check the path.")) {
                try RegionMonitoring(
                    configuration: Self.configuration(missing), dataDirectory: directory, logger: Logger(label: "test"))
            }
        }
    }

    /// Runs in a ServiceGroup: events from deviceLocation; a reload of a changed file
    /// keeps the membership of the regions that stay; a reload of a bad file keeps the
    /// regions with one log line; shutdown stores the membership.
    @Test func reloadsAndStoresOnShutdown() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/regions.geojson"
            try Self.write([Self.feature("home", lat: 52.5), Self.feature("work", lat: 52.6)], to: path)
            // Settled before (a previous run, outside every region), so that the first
            // fix the service sees, whenever it attaches, is a real enter.
            try JSONEncoder().encode(MembershipState(settled: true))
                .write(to: URL(fileURLWithPath: directory + "/regionMembership.json"))
            let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
            let log = LogRecorder()
            let regions = try RegionMonitoring(
                configuration: Self.configuration(path), dataDirectory: directory, logger: log.logger)
            let events = Recorder<[RegionEvent]>()
            regions.monitor.events.addListener(events)
            let reloads = Recorder<Int>()
            regions.reloads.addListener(reloads)
            let group = ServiceGroup(
                services: [
                    RegionService(
                        regions: regions, deviceLocation: deviceLocation,
                        membershipQueue: DispatchQueue(label: "membership"))
                ],
                logger: Logger(label: "test"))
            let running = Task { try await group.run() }

            deviceLocation ~> regionFix(52.5, 13.4, second: 1)
            try await events.wait(for: "the enter") { $0.count == 1 }
            #expect(events.changes.last?.new.map(\.region) == ["home"])

            try Self.write(
                [Self.feature("home", lat: 52.5001, radius: 150), Self.feature("park", lat: 52.7)], to: path)
            regions.reload()
            try await reloads.wait(for: "the first reload") { $0.count == 1 }
            #expect(regions.monitor.regions.regions.map(\.id) == ["home", "park"])
            #expect(regions.monitor.membership.value == ["home"])

            try Data("{\"type\":".utf8).write(to: URL(fileURLWithPath: path))
            regions.reload()
            try await reloads.wait(for: "the second reload") { $0.count == 2 }
            #expect(regions.monitor.regions.regions.map(\.id) == ["home", "park"])
            #expect(
                log.messages(at: .error) == [
                    "\(path): not GeoJSON: expected '\"' at byte 8, found the end of the file; keeping the 2 regions loaded before"
                ])

            await group.triggerGracefulShutdown()
            try await withTimeLimit("the service to stop") { try await running.value }
            let stored = try JSONDecoder().decode(
                MembershipState.self,
                from: Data(contentsOf: URL(fileURLWithPath: directory + "/regionMembership.json")))
            #expect(stored.inside == ["home"])
            #expect(log.messages(at: .info).contains("entered region home (\"Home\") at 52.500000 13.400000"))
        }
    }
}
