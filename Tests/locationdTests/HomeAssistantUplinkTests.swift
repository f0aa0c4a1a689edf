import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// The uplinks as a Home Assistant user sets them up: a real Home Assistant from PyPI
/// (`scripts/home-assistant`) with its Traccar Client, OwnTracks and GPSLogger
/// integrations set up through their config flows, each a webhook; the daemon, fed by a
/// real gpsd (gpsfake), sends to all three at once; Home Assistant's states are read
/// through its REST API.
///
/// What it costs CI: the virtual environment the Home Assistant MQTT test uses too
/// (`scripts/home-assistant`: 708 MB, about 2 minutes with uv, once, then cached); the
/// three webhooks need no package more (gpslogger has no requirements; traccar's manifest
/// names pytraccar and stringcase, which its webhook's code does not import, and
/// `--skip-pip` does not check them). Then one Home Assistant start (seconds on an idle
/// machine, up to a minute on two busy cores): the test took 16 s alone here, 38 s beside
/// the other uplink suites.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct HomeAssistantUplinkTests {
    /// A drive of 30 fixes, 3D with HDOP (so an accuracy); the last one is held by gpsfake.
    static let track = ParkedTrack([.drive(metres: 300, speed: 10)])

    /// `locationd last --json` of `daemon`, once its last fix is the track's fix number `index`.
    static func waitForLast(_ daemon: DaemonProcess, fix index: Int) async throws -> [String: Any] {
        let time = UTCCalendar.iso8601(track.fixes[index].time!)
        return try await waitUntil(seconds: 120, "the daemon's last fix at \(time)") {
            let run = try await runLocationd(["last", "--json", "--socket", daemon.socketPath])
            let last = try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
            return last.flatMap { $0["time"] as? String == time ? $0 : nil }
        }
    }

    /// `locationd uplinks --json` of `daemon`, by target name.
    static func uplinks(_ daemon: DaemonProcess) async throws -> [String: [String: Any]] {
        let run = try await runLocationd(["uplinks", "--json", "--socket", daemon.socketPath])
        let targets = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [[String: Any]] ?? []
        return Dictionary(targets.map { ($0["name"] as? String ?? "", $0) }) { $1 }
    }

    /// Whether `state`'s position is `fix`'s (a TPV object) within a millionth of a degree
    /// (about 10 cm: OwnTracks carries 7 decimals, the others 9), with `accuracy` as its
    /// `gps_accuracy`.
    static func isAt(_ fix: [String: Any], accuracy: Double) -> @Sendable ([String: Any]) -> Bool {
        let (lat, lon) = (fix["lat"] as? Double ?? .nan, fix["lon"] as? Double ?? .nan)
        return { state in
            let attributes = state["attributes"] as? [String: Any] ?? [:]
            guard let latitude = attributes["latitude"] as? Double, let longitude = attributes["longitude"] as? Double
            else { return false }
            return abs(latitude - lat) < 1e-6 && abs(longitude - lon) < 1e-6
                && attributes["gps_accuracy"] as? Double == accuracy
        }
    }

    @Test func homeAssistantsWebhooksShowTheDaemonsPosition() async throws {
        let home = try await HomeAssistant()
        let traccar = try HomeAssistant.webhookID(of: try await home.setUp("traccar", with: [:]))
        let owntracks = try HomeAssistant.webhookID(of: try await home.setUp("owntracks", with: [:]))
        let gpslogger = try HomeAssistant.webhookID(of: try await home.setUp("gpslogger", with: [:]))
        let base = "http://127.0.0.1:\(home.port)/api/webhook/"

        let log = try Self.track.write(name: "home-assistant-uplinks")
        defer { try? FileManager.default.removeItem(at: log) }
        let gpsfake = try GPSFake(log: log, cycle: 0.002, once: true)
        defer { gpsfake.stop() }
        let directory = try TemporaryDirectory()
        let arguments = [
            "--source", "gpsd", "--gpsd", "127.0.0.1:\(gpsfake.port)",
            "--uplink", "osmand=\(base)\(traccar) device=osmand-van name=ha-traccar",
            "--uplink", "owntracks=\(base)\(owntracks) user=anna device=van name=ha-owntracks",
            "--uplink", "gpslogger=\(base)\(gpslogger) device=gpslogger-van name=ha-gpslogger",
        ]
        // Every fix, not one per 5 s: the last one must reach Home Assistant.
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: arguments,
            environment: ["LOCATIOND_UPLINK_MIN_INTERVAL": "0"])

        // All but the last fix; gpsfake holds that one, so that gpsd keeps its device.
        let lines = ParkedTrack.linesPerFix
        let count = Self.track.fixes.count
        try await gpsfake.startFeeding(holdingBack: lines + 1)
        let last = try await Self.waitForLast(daemon, fix: count - 2)
        let eph = try #require(last["eph"] as? Double, "\(last)")

        // Each integration's tracker at the last fix, with the accuracy each was sent:
        // `eph` as it is (traccar, gpslogger), in whole metres (OwnTracks' `acc`). Home
        // Assistant drops the webhooks' `-`s from a device id.
        let entities = [
            ("device_tracker.osmandvan", eph), ("device_tracker.anna_van", max(1, eph.rounded())),
            ("device_tracker.gpsloggervan", eph),
        ]
        for (entity, accuracy) in entities {
            try await home.waitFor(entity, "at the daemon's last fix", Self.isAt(last, accuracy: accuracy))
        }
        // GPSLogger's attributes as sent: the fix's source, the speed in m/s.
        let logger = try #require(
            try await home.state(of: "device_tracker.gpsloggervan")?["attributes"] as? [String: Any])
        let speed = try #require(last["speed"] as? Double)
        #expect(logger["provider"] as? String == "gpsd", "\(logger)")
        // In m/s (in knots it would be 1.94 times as much). Within 0.05 m/s: an epoch whose
        // reports gpsd sent one more than the daemon had learnt went out at its first report,
        // with the speed gpsd computed from the positions, while `last` shows the receiver's.
        #expect(abs((logger["speed"] as? Double ?? -1) - speed) < 0.05, "\(logger)")

        // The daemon says each delivered it, and has nothing waiting.
        let time = try #require(last["time"] as? String)
        let targets = try await waitUntil(seconds: 60, "every target delivered the last fix") {
            let targets = try await Self.uplinks(daemon)
            let done = targets.values.filter { $0["lastDeliveredFix"] as? String == time && $0["backlog"] as? Int == 0 }
            return done.count == 3 ? targets : nil
        }
        #expect(targets.keys.sorted() == ["ha-gpslogger", "ha-owntracks", "ha-traccar"])
        for (name, target) in targets {
            #expect(target["state"] as? String == "delivering" && target["history"] as? String == "latest", "\(name)")
            #expect((target["delivered"] as? Int ?? 0) >= 1, "\(name): \(target)")
        }
        #expect(targets["ha-gpslogger"]?["lastAnswer"] as? String == "HTTP 200: Setting location for gpsloggervan")

        // `locationd uplinks --test`: a delivery at the webhook; at a webhook id Home
        // Assistant does not know, its empty 200 is not one.
        let config = directory.path + "/locationd.conf"
        try """
        uplink = gpslogger=\(base)\(gpslogger) device=gpslogger-van name=ha-gpslogger
        uplink = gpslogger=\(base)no-such-webhook device=gpslogger-van name=nowhere
        uplink = osmand=\(base)no-such-webhook?id=osmand-van name=osmand-nowhere

        """.write(toFile: config, atomically: true, encoding: .utf8)
        let test = ["uplinks", "--socket", daemon.socketPath, "--config", config, "--test"]
        let delivered = try await runLocationd(test + ["ha-gpslogger"])
        #expect(delivered.status == 0, "\(delivered.stdout)\(delivered.stderr)")
        #expect(
            delivered.stdout.contains("delivered, HTTP 200: Setting location for gpsloggervan"), "\(delivered.stdout)")
        let nowhere = try await runLocationd(test + ["nowhere"])
        #expect(nowhere.status == 1 && nowhere.stdout.contains("not delivered, HTTP 200"), "\(nowhere.stdout)")
        // The same empty 200 to an OsmAnd fix: not the traccar webhook's answer, no delivery.
        let osmandNowhere = try await runLocationd(test + ["osmand-nowhere"])
        #expect(
            osmandNowhere.status == 1 && osmandNowhere.stdout.contains("registered traccar webhook"),
            "\(osmandNowhere.stdout)")
        #expect(try await daemon.stop().status == 0)

        // Nothing in Home Assistant's log about what the daemon sent.
        let complaints = home.log.split(separator: "\n").filter { line in
            (line.contains(" WARNING ") || line.contains(" ERROR "))
                && ["traccar", "owntracks", "gpslogger", "webhook"].contains { line.contains($0) }
        }
        #expect(complaints.isEmpty, "\(complaints.joined(separator: "\n"))")
    }
}
