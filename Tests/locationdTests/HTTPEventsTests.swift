import Foundation
import LocationProviders
import LocationRegions
import LocationState
import LocationTestSupport
import Logging
import Testing

@testable import locationd

/// `/api/v1/events`: Server-Sent Events in order, bounded clients, a slow client dropped.
@Suite(.timeLimit(.minutes(5)))
struct HTTPEventsTests {
    @Test func aDaemonStreamsStatusAndEveryFixInOrder() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data",
            arguments: ["--source", "replay", HTTPAPITests.walk.path])
        let client = HTTPTestClient(port: try await daemon.httpPort())
        let (status, stream) = try await client.open("/api/v1/events")
        #expect(status == 200)
        var times: [String] = []
        var statuses = 0
        while times.count < 5 {
            let event = try #require(await readEvent(stream), "the event stream ended")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
            switch event.event {
            case "fix":
                #expect(object["class"] as? String == "TPV")
                if let time = object["time"] as? String { times.append(time) }
            case "status":
                #expect(object["class"] as? String == "STATUS")
                statuses += 1
            case "motion", "stay", "trip":
                break
            default:
                Issue.record("unexpected event \(event.event)")
            }
        }
        #expect(statuses >= 1)
        // The walk's fixes are one a second, so each comes after the one before.
        #expect(times == times.sorted() && Set(times).count == times.count, "\(times)")
        #expect(try await daemon.stop().status == 0)
    }

    /// An in-process server with small bounds, fed as fast as the test can: a fast client
    /// gets every fix in order, a client that never reads is dropped, the 3rd stream is refused.
    @Test func aSlowClientIsDroppedAndAFastOneGetsEveryFix() async throws {
        let directory = try TemporaryDirectory()
        let log = CapturedLog()
        let logger = log.logger(level: .notice)
        let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
        let status = MonitoredState<ProviderStatus>(key: "providerStatus", initialValue: .connecting(.replay))
        let context = try DaemonContext.testing(
            directory: directory.path, deviceLocation: deviceLocation, status: status, logger: logger)
        let routes = HTTPRoutes(
            responder: ControlResponder(context: context), status: status,
            statusJSON: { ControlAnswers.status($0, fixes: 0, uptimeSeconds: 0, tiles: $1) },
            dataDirectory: URL(fileURLWithPath: directory.path),
            tracksDirectory: URL(fileURLWithPath: directory.path + "/tracks"),
            events: HTTPEventStreams(
                limits: .init(maxClients: 2, maxQueuedBytes: 64 * 1024, keepaliveInterval: .seconds(15)),
                logger: logger), watchers: context.watchers)
        var configuration = HTTPConfiguration()
        configuration.port = 0
        let service = HTTPService(configuration: configuration, routes: routes, token: nil, logger: logger)
        let server = Task { try await service.run() }
        defer { server.cancel() }
        let line = try await log.lines.next(within: .seconds(20), "the URL logged") { $0.contains("serving") }
        let port = try #require(Int(line.split(separator: ":").last?.prefix(while: \.isNumber) ?? ""))
        let client = HTTPTestClient(port: port)

        let (slowStatus, slow) = try await client.open("/api/v1/events", receiveBuffer: 4096)
        let (fastStatus, fast) = try await client.open("/api/v1/events")
        #expect(slowStatus == 200 && fastStatus == 200)
        let refused = try await client.get("/api/v1/events")
        #expect(refused.status == 503)
        #expect(try refused.object()["error"] as? String == "too many event streams are open; try again later")

        // Each fix about 300 bytes: 3000 of them are far more than the slow client's
        // socket buffers and 64 KiB queue hold.
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var seen: [Double] = []
        // In batches the fast client reads before the next comes (its queue stays far below
        // the bound), while the slow one never reads, until the kernel's socket buffers and
        // then its 64 KiB queue are full and it is dropped (its stream ends: one left open).
        var sent = 0
        while routes.events.count == 2 {
            try #require(sent < 100_000, "the slow client was not dropped after \(sent) fixes")
            for index in sent..<sent + 100 {
                deviceLocation
                    ~> Location(
                        time: start.addingTimeInterval(Double(index)), mode: .threeD, status: 1,
                        lat: 10 + Double(index) * 1e-6, lon: 20, altHAE: 100, speed: 1.5, track: 90, eph: 5,
                        source: .replay)
            }
            sent += 100
            while seen.count < sent {
                let event = try #require(await readEvent(fast), "the fast client's stream ended after \(seen.count)")
                guard event.event == "fix" else { continue }
                let object = try #require(
                    try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any])
                seen.append(try #require(object["lat"] as? Double))
            }
        }
        #expect(seen.count == sent)
        #expect(seen == seen.sorted() && Set(seen).count == seen.count)
        _ = try await log.lines.next(within: .seconds(20), "the slow client dropped") {
            $0.contains("does not keep up; dropping it")
        }
        // The dropped client's stream ends once it reads what was already sent.
        let drained = await offThePool { () -> Bool in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(slow.fileDescriptor, &buffer, buffer.count)
                if n == 0 { return true }
                if n < 0 { return false }
            }
        }
        #expect(drained, "the slow client's connection was not closed")
        // A slot is free again.
        let (againStatus, _) = try await client.open("/api/v1/events")
        #expect(againStatus == 200)
    }

    /// With region monitoring, a fix that enters a region makes a `region` event.
    @Test func aRegionEventFollowsItsFix() async throws {
        let directory = try TemporaryDirectory()
        let log = CapturedLog()
        let logger = log.logger(level: .notice)
        let regionsFile = directory.path + "/regions.geojson"
        try RegionDaemonTests.collection(
            #"{"type":"Feature","id":"home","properties":{"name":"Home","radius":100},"geometry":{"type":"Point","coordinates":[13.4,52.5]}}"#
        ).write(toFile: regionsFile, atomically: true, encoding: .utf8)
        try #"{"inside":[],"pendingSince":{},"settled":true}"#.write(
            toFile: directory.path + "/regionMembership.json", atomically: true, encoding: .utf8)
        var regionConfiguration = RegionConfiguration()
        regionConfiguration.regionsPath = regionsFile
        let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
        let regions = try RegionMonitoring(
            configuration: regionConfiguration, dataDirectory: directory.path, logger: logger)
        let membership = regions.monitor.attach(to: deviceLocation)
        defer { membership.cancel() }
        var context = try DaemonContext.testing(
            directory: directory.path, deviceLocation: deviceLocation, logger: logger)
        context.configuration.http.port = 0
        context.regions = regions
        let service = HTTPService(context: context)
        let server = Task { try await service.run() }
        defer { server.cancel() }
        let line = try await log.lines.next(within: .seconds(20), "the URL logged") { $0.contains("serving") }
        let port = try #require(Int(line.split(separator: ":").last?.prefix(while: \.isNumber) ?? ""))
        let (opened, stream) = try await HTTPTestClient(port: port).open("/api/v1/events")
        #expect(opened == 200)
        _ = try #require(await readEvent(stream), "no first status event")

        let time = Date(timeIntervalSince1970: 1_795_000_000)
        deviceLocation ~> Location(time: time, mode: .threeD, lat: 52.6, lon: 13.4, source: .gpsd)
        deviceLocation ~> Location(time: time + 1, mode: .threeD, lat: 52.5, lon: 13.4, source: .gpsd)
        var events: [String] = []
        while events.count < 3 {
            let event = try #require(await readEvent(stream), "the stream ended after \(events)")
            if event.event == "status" { continue }
            events.append("\(event.event) \(event.data)")
        }
        #expect(events[0].hasPrefix(#"fix {"class":"TPV""#) && events[0].contains(#""lat":52.600000000"#))
        // The second fix and the enter it made come on two subscriptions; a loaded
        // machine may hand out the region event first.
        let rest = events.dropFirst().sorted()
        #expect(rest[0].hasPrefix(#"fix {"class":"TPV""#) && rest[0].contains(#""lat":52.500000000"#), "\(events)")
        #expect(rest[1].hasPrefix(#"region {"class":"REGION","event":"enter","region":"home""#), "\(events)")
    }
}
