import Foundation
import LocationMQTT
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// Home Assistant as a user meets locationd: a real Home Assistant from PyPI
/// (`scripts/home-assistant`), its MQTT integration and its OwnTracks integration set up
/// through their config flows on a real Mosquitto, the daemon fed by a real gpsd
/// (gpsfake) with discovery on; everything checked through Home Assistant's REST API.
@Suite(.serialized, .timeLimit(.minutes(15)))
struct HomeAssistantTests {
    /// The track, played in stages: a first fix in 2D without altitude or accuracy, a
    /// drive, a stop longer than `stay-duration`, a drive.
    static let track = ParkedTrack([
        .driveIn2D(metres: 100, speed: 10), .drive(metres: 600, speed: 10), .parked(seconds: 120),
        .drive(metres: 600, speed: 10),
    ])
    /// The fixes of each stage.
    static let stages = [10, 60, 120, 60]

    /// `locationd last --json` of `daemon`, as a dictionary.
    static func last(_ daemon: DaemonProcess) async throws -> [String: Any]? {
        let run = try await runLocationd(["last", "--json", "--socket", daemon.socketPath])
        return try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
    }

    /// Waits until the daemon's last fix is the track's fix number `index`; returns `locationd last`.
    static func waitForLast(_ daemon: DaemonProcess, fix index: Int) async throws -> [String: Any] {
        let time = UTCCalendar.iso8601(track.fixes[index].time!)
        return try await waitUntil(seconds: 120, "the daemon's last fix at \(time)") {
            try await Self.last(daemon).flatMap { $0["time"] as? String == time ? $0 : nil }
        }
    }

    /// Whether `state`'s position is that of `fix` (a TPV object), to the nine decimals both carry.
    static func isAt(_ fix: [String: Any]) -> @Sendable ([String: Any]) -> Bool {
        let (lat, lon) = (fix["lat"] as? Double ?? .nan, fix["lon"] as? Double ?? .nan)
        return { state in
            let attributes = state["attributes"] as? [String: Any] ?? [:]
            return attributes["latitude"] as? Double == lat && attributes["longitude"] as? Double == lon
        }
    }

    /// Whether the daemon's source is connected (`?STATUS;`): it watches gpsd.
    static func isConnected(_ daemon: DaemonProcess) -> Bool {
        let answer = ((try? ControlClient.ask("?STATUS;", socketPath: daemon.socketPath)) ?? nil) ?? ""
        return answer.contains(#""connected":true"#)
    }

    /// The device trackers Home Assistant has, sorted.
    static func trackers(_ home: HomeAssistant) async throws -> [String] {
        try await home.states().compactMap { $0["entity_id"] as? String }.filter { $0.hasPrefix("device_tracker.") }
            .sorted()
    }

    static func hasState(_ value: String) -> @Sendable ([String: Any]) -> Bool {
        { $0["state"] as? String == value }
    }

    @Test func homeAssistantSeesTheDeviceItsMotionAndItsAbsence() async throws {
        let broker = try await Mosquitto()
        let home = try await HomeAssistant()
        try await home.setUp("mqtt", with: ["broker": "127.0.0.1", "port": broker.port])
        try await home.setUp("owntracks", with: [:])

        let log = try Self.track.write(name: "home-assistant")
        defer { try? FileManager.default.removeItem(at: log) }
        let gpsfake = try GPSFake(log: log, cycle: 0.002, once: true)
        defer { gpsfake.stop() }
        let directory = try TemporaryDirectory()
        let config = directory.path + "/locationd.conf"
        let settings =
            "mqtt-discovery = on\nmqtt-client-id = locationd-ha-test\nmqtt-keepalive = 5\nstay-duration = 60\n"
        try settings.write(toFile: config, atomically: true, encoding: .utf8)
        let arguments = [
            "--source", "gpsd", "--gpsd", "127.0.0.1:\(gpsfake.port)", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
            "--config", config,
        ]
        var daemon = try await DaemonProcess(dataDirectory: directory.path + "/data", arguments: arguments)

        // The three entities, on one device named after the host, with what the daemon's version says.
        let host = MQTTConfiguration().deviceName
        let slug = "locationd_" + host.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
        let (tracker, moving, distance, place) =
            (
                "device_tracker.\(slug)", "binary_sensor.\(slug)_moving", "sensor.\(slug)_distance_today",
                "sensor.\(slug)_place"
            )
        for entity in [tracker, moving, distance, place] { try await home.waitFor(entity, "to be discovered") }
        let device = try await home.render(
            "{% set d = device_id('\(tracker)') %}{{ [device_attr(d, 'name'), device_attr(d, 'model'), device_attr(d, 'sw_version'), device_attr(d, 'manufacturer')] | join('|') }}|{{ device_entities(d) | sort | join(',') }}"
        )
        #expect(
            device
                == "locationd \(host)|GNSS location daemon|\(LocationdVersion.current)|locationd|"
                + [distance, moving, place, tracker].sorted().joined(separator: ","))
        #expect(
            try await home.state(of: tracker)?["attributes"].flatMap { $0 as? [String: Any] }?["friendly_name"]
                as? String == "locationd \(host)")
        // The origin, which Home Assistant logs for each entity it discovers (its log is
        // written by a thread of its own, a moment later).
        for component in ["device_tracker locationd-ha-test", "binary_sensor locationd-ha-test_moving"] {
            let line =
                "Found new component: \(component) from external application locationd, version: \(LocationdVersion.current)"
            try await waitUntil(seconds: 30) { home.log.contains(line) }
        }

        // A first fix in 2D, without altitude or accuracy, is taken as it is.
        let lines = ParkedTrack.linesPerFix
        let total = (Self.track.leadIn + Self.track.fixes.count) * lines
        try await gpsfake.startFeeding(holdingBack: total + 1 - (Self.track.leadIn + Self.stages[0]) * lines)
        let first = try await Self.waitForLast(daemon, fix: Self.stages[0] - 1)
        #expect(first["mode"] as? Int == 2 && first["altMSL"] == nil && first["altHAE"] == nil && first["eph"] == nil)
        let taken = try await home.waitFor(tracker, "at the 2D fix", Self.isAt(first))
        let attributes = try #require(taken["attributes"] as? [String: Any])
        #expect(attributes["altitude"] == nil && attributes["source"] as? String == "gpsd", "\(attributes)")
        #expect(attributes["gps_accuracy"] as? Double ?? 0 == 0, "\(attributes)")

        // Moving on, off, on; the distance of the first trip once it closed.
        try await gpsfake.feed(lines: Self.stages[1] * lines)
        try await home.waitFor(moving, "on", Self.hasState("on"))
        try await gpsfake.feed(lines: Self.stages[2] * lines)
        try await home.waitFor(moving, "off", Self.hasState("off"))
        // Stopped: the place is named as `locationd places` names it (the nearest town here);
        // renamed by the user, it takes their name at once.
        let listed = try await runLocationd(["places", "--json", "--socket", daemon.socketPath])
        let placeLine = try #require(listed.stdout.split(separator: "\n").first, "\(listed.stderr)")
        let stopped = try #require(JSONSerialization.jsonObject(with: Data(placeLine.utf8)) as? [String: Any])
        let town = try #require(stopped["name"] as? String, "\(placeLine)")
        try await home.waitFor(place, "named \(town)", Self.hasState(town))
        let renamed = try await runLocationd([
            "places", "rename", "\(stopped["id"] as? Int ?? 0)", "Harbour \"Nord\"", "--socket", daemon.socketPath,
        ])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        try await home.waitFor(place, "renamed", Self.hasState("Harbour \"Nord\""))
        let metres = try await home.waitFor(distance, "the first trip's") {
            Double($0["state"] as? String ?? "") ?? 0 > 0
        }
        #expect((600.0...800.0).contains(Double(metres["state"] as? String ?? "") ?? 0), "\(metres)")
        // The last fix of the log stays held, so that gpsd keeps its device.
        try await gpsfake.feed(lines: (Self.stages[3] - 1) * lines)
        try await home.waitFor(moving, "on again", Self.hasState("on"))
        try await home.waitFor(place, "unknown on the move", Self.hasState("unknown"))
        let last = try await Self.waitForLast(daemon, fix: Self.track.fixes.count - 2)
        try await home.waitFor(tracker, "at `locationd last`", Self.isAt(last))

        // Killed: the broker's last will makes every entity unavailable.
        _ = try await daemon.stop(with: SIGKILL)
        for entity in [tracker, moving, distance, place] {
            try await home.waitFor(entity, "unavailable after SIGKILL", Self.hasState("unavailable"))
        }
        // Started again, then stopped cleanly: available, then unavailable again.
        daemon = try await DaemonProcess(dataDirectory: directory.path + "/data", arguments: arguments)
        try await home.waitFor(tracker, "available again") { $0["state"] as? String != "unavailable" }
        #expect(try await daemon.stop().status == 0)
        for entity in [tracker, moving, distance] {
            try await home.waitFor(entity, "unavailable after SIGTERM", Self.hasState("unavailable"))
        }

        // One tracker for the device although Home Assistant's OwnTracks integration reads
        // owntracks/#; a second one only when OwnTracks messages are asked for.
        #expect(try await Self.trackers(home) == [tracker])
        try (settings + "mqtt-owntracks = on\n").write(toFile: config, atomically: true, encoding: .utf8)
        daemon = try await DaemonProcess(dataDirectory: directory.path + "/data", arguments: arguments)
        // The log's last fix, once the daemon watches gpsd: it publishes it on both bases now.
        try await waitUntil(seconds: 60) { [daemon] in Self.isConnected(daemon) }
        try await gpsfake.feed(lines: lines)
        let both = try await waitUntil(seconds: 120, "a second tracker, from the OwnTracks integration") {
            let trackers = try await Self.trackers(home)
            return trackers.count == 2 ? trackers : nil
        }
        #expect(both.contains(tracker))
        #expect(try await daemon.stop().status == 0)

        // Nothing in Home Assistant's log about locationd's messages.
        let complaints = home.log.split(separator: "\n").filter { line in
            (line.contains(" WARNING ") || line.contains(" ERROR "))
                && (line.contains("locationd") || line.contains("owntracks") || line.contains("mqtt"))
        }
        #expect(complaints.isEmpty, "\(complaints.joined(separator: "\n"))")
    }
}
