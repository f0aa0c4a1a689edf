import Foundation
import LocationMQTT
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// `locationd run --mqtt` against a real Mosquitto broker, with `mosquitto_sub` as the receiver.
@Suite(.serialized, .timeLimit(.minutes(10))) struct MQTTTests {
    /// A message's payload as a dictionary (Foundation's parser).
    static func json(_ payload: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any])
    }

    private static func isLocation(_ message: (topic: String, payload: String)) -> Bool {
        message.payload.contains(#""_type":"location""#)
    }

    /// A configuration file with the MQTT settings (the topic unique to the test).
    static func configFile(in directory: String, _ settings: [String: String]) throws -> String {
        let path = directory + "/locationd.conf"
        let text = settings.map { "\($0) = \($1)" }.sorted().joined(separator: "\n") + "\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The walk's fixes by their integer time.
    private static let walk = Dictionary(
        uniqueKeysWithValues: ReplaySampleTracks.walkFixes().map { (Int($0.time!.timeIntervalSince1970), $0) })

    /// locationd's base topic for a test's OwnTracks topic `owntracks/test/NAME`: `locationd/test/NAME`.
    static func locationdTopic(_ topic: String) -> String {
        "locationd/" + topic.split(separator: "/").dropFirst().joined(separator: "/")
    }

    /// Starts the daemon replaying the walk and publishing to `broker` under `topic` (and
    /// ``locationdTopic(_:)``).
    static func daemon(
        _ directory: String, broker: String, topic: String, extra: [String: String] = [:]
    ) async throws -> DaemonProcess {
        let config = try configFile(
            in: directory,
            ["mqtt-topic": topic, "mqtt-locationd-topic": locationdTopic(topic)].merging(extra) { $1 })
        return try await DaemonProcess(
            dataDirectory: directory + "/data",
            arguments: [
                "--source", "replay", Repository.sampleTrack("walk.nmea"), "--mqtt", broker, "--config", config,
            ])
    }

    private static func status(_ daemon: DaemonProcess) -> String {
        ((try? ControlClient.ask("?STATUS;", socketPath: daemon.socketPath)) ?? nil) ?? ""
    }

    /// The `mqtt` object of `?STATUS;`.
    private static func mqttStatus(_ daemon: DaemonProcess) -> [String: Any]? {
        (try? json(status(daemon)))?["mqtt"] as? [String: Any]
    }

    @Test func payloadFieldsAndUnitsThenRetainedForALateSubscriber() async throws {
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto()
        let topic = "owntracks/test/walk"
        let locationd = Self.locationdTopic(topic)
        let subscriber = try await MosquittoSubscriber(port: broker.port, topic: topic + "/#")
        let ownMessages = try await MosquittoSubscriber(port: broker.port, topic: locationd + "/#")
        let homeAssistant = try await MosquittoSubscriber(port: broker.port, topic: "homeassistant/#")
        // Both trackers asked for: Home Assistant's discovery and OwnTracks messages.
        let daemon = try await Self.daemon(
            directory.path, broker: "mqtt://127.0.0.1:\(broker.port)", topic: topic,
            extra: ["mqtt-discovery": "on", "mqtt-client-id": "locationd-walk", "mqtt-owntracks": "on"])
        let discovery = try await homeAssistant.messages.next(within: .seconds(30), "the discovery config") {
            $0.topic.hasPrefix("homeassistant/device_tracker/")
        }
        #expect(discovery.topic == "homeassistant/device_tracker/locationd-walk/config")
        let config = try Self.json(discovery.payload)
        #expect(config["json_attributes_topic"] as? String == locationd + "/location")
        #expect(config["availability_topic"] as? String == locationd + "/status")
        #expect(config["source_type"] as? String == "gps")
        #expect(config["unique_id"] as? String == "locationd-walk")
        // The status goes out before the first fix it announces.
        let live = try await ownMessages.messages.next(within: .seconds(30), "the live status") {
            $0.topic == locationd + "/status" && $0.payload.contains(#""state":"live""#)
        }
        #expect(try Self.json(live.payload)["class"] as? String == "STATUS")
        let tpv = try await ownMessages.messages.next(within: .seconds(30), "a TPV") {
            $0.topic == locationd + "/location"
        }
        #expect(try Self.json(tpv.payload)["class"] as? String == "TPV")
        let message = try await subscriber.messages.next(within: .seconds(30), "a location") { Self.isLocation($0) }
        #expect(message.topic == topic)
        let fields = try Self.json(message.payload)
        let tst = try #require(fields["tst"] as? Int)
        let fix = try #require(Self.walk[tst], "tst \(tst) is not a time of the walk")
        #expect(abs(try #require(fields["lat"] as? Double) - fix.lat!) < 1e-7)
        #expect(abs(try #require(fields["lon"] as? Double) - fix.lon!) < 1e-7)
        #expect(fields["alt"] as? Int == Int(fix.altMSL!.rounded()))
        #expect(fields["vel"] as? Int == Int((fix.speed! * 3.6).rounded()))
        #expect(fields["cog"] as? Int == Int(fix.track!.rounded()) % 360)
        #expect(fields["source"] as? String == "replay")
        #expect(fields["t"] as? String == "t")
        #expect((fields["tid"] as? String)?.count ?? 0 <= 2)
        // The daemon estimates eph from HDOP; the walk has no vertical estimate.
        #expect(fields["acc"] is Int)
        #expect(fields["created_at"] is Int)
        let mqtt = try #require(Self.mqttStatus(daemon))
        #expect(mqtt["connected"] as? Bool == true)
        #expect(mqtt["queued"] is Int)
        // The HTTP API's status carries the same object.
        let http = try await HTTPTestClient(port: try await daemon.httpPort()).get("/api/v1/status")
        let httpMQTT = try #require(try Self.json(http.body)["mqtt"] as? [String: Any])
        #expect(httpMQTT["connected"] as? Bool == true)

        // A subscriber that connects now gets the last location at once: it is retained.
        let late = try await MosquittoSubscriber(port: broker.port, topic: topic)
        let retained = try await late.messages.next(within: .seconds(10), "the retained location")
        #expect(Self.isLocation(retained))
        #expect(try Self.walk[#require(Self.json(retained.payload)["tst"] as? Int)] != nil)
        _ = try await daemon.stop()
    }

    /// With regions, an enter goes out as an OwnTracks transition on `TOPIC/event`, and
    /// the region list as `waypoints`.
    @Test func aRegionEnterIsAnOwnTracksTransition() async throws {
        let directory = try TemporaryDirectory()
        let start = try #require(ReplaySampleTracks.walkFixes().first)
        let regions = directory.path + "/regions.geojson"
        try RegionDaemonTests.collection(
            #"{"type":"Feature","id":"park","properties":{"name":"Tiergarten","radius":2000},"geometry":{"type":"Point","coordinates":[\#(start.lon!),\#(start.lat!)]}}"#
        ).write(toFile: regions, atomically: true, encoding: .utf8)
        let broker = try await Mosquitto()
        let topic = "owntracks/test/regions"
        let subscriber = try await MosquittoSubscriber(port: broker.port, topic: topic + "/event")
        let waypoints = try await MosquittoSubscriber(port: broker.port, topic: topic + "/waypoints")
        // The first fix is inside: with region-initial-enter it is reported as an enter.
        let daemon = try await Self.daemon(
            directory.path, broker: "mqtt://127.0.0.1:\(broker.port)", topic: topic,
            extra: ["regions": regions, "region-initial-enter": "true"])
        let message = try await subscriber.messages.next(within: .seconds(30), "the transition")
        #expect(message.topic == topic + "/event")
        let fields = try Self.json(message.payload)
        #expect(fields["_type"] as? String == "transition")
        #expect(fields["event"] as? String == "enter")
        #expect(fields["desc"] as? String == "Tiergarten")
        #expect(fields["rid"] as? String == "park")
        #expect(fields["t"] as? String == "c")
        #expect(fields["wtst"] as? Int == MQTTPublisher.waypointStamp("park"))
        let tst = try #require(fields["tst"] as? Int)
        let fix = try #require(Self.walk[tst], "tst \(tst) is not a time of the walk")
        #expect(abs(try #require(fields["lat"] as? Double) - fix.lat!) < 1e-7)
        // The region list, for the OwnTracks Recorder and apps.
        let list = try Self.json(try await waypoints.messages.next(within: .seconds(30), "the waypoints").payload)
        #expect(list["_type"] as? String == "waypoints")
        let waypoint = try #require((list["waypoints"] as? [[String: Any]])?.first)
        #expect(waypoint["desc"] as? String == "Tiergarten" && waypoint["rad"] as? Int == 2000)
        #expect(waypoint["tst"] as? Int == MQTTPublisher.waypointStamp("park") && waypoint["rid"] as? String == "park")
        _ = try await daemon.stop()
    }

    /// The tst of the locations among `messages`, first occurrences in order, and the duplicates' count.
    private static func timeline(_ payloads: [String]) throws -> (times: [Int], duplicates: Int) {
        var times: [Int] = []
        var seen: Set<Int> = []
        var duplicates = 0
        for payload in payloads where payload.contains(#""_type":"location""#) {
            let tst = try #require(try json(payload)["tst"] as? Int)
            if seen.insert(tst).inserted { times.append(tst) } else { duplicates += 1 }
        }
        return (times, duplicates)
    }

    @Test func brokerAwayDuringTheStreamThenBackEveryFixInOrder() async throws {
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto(persistence: true)
        let topic = "owntracks/test/outage"
        // A persistent session: the broker keeps what arrives for it while it reconnects.
        let subscriber = try await MosquittoSubscriber(
            port: broker.port, topic: topic, extra: ["-c", "-i", "locationd-test-outage"])
        let daemon = try await Self.daemon(directory.path, broker: "mqtt://127.0.0.1:\(broker.port)", topic: topic)
        var payloads: [String] = []
        for _ in 0..<2 {
            payloads.append(try await subscriber.messages.next(within: .seconds(30), "a location").payload)
        }
        await broker.stop()
        // The daemon sees the connection end after the fixes that reach the outbox while the
        // broker shuts down: the status says so within the bound, with the messages queued.
        try await waitUntil(seconds: 30) {
            let status = Self.mqttStatus(daemon)
            return status?["connected"] as? Bool == false && (status?["queued"] as? Int ?? 0) >= 3
        }
        try await broker.start()
        try await waitUntil(seconds: 30) { Self.mqttStatus(daemon)?["connected"] as? Bool == true }
        // Everything queued during the outage, then two more live fixes.
        let last = try Self.timeline(payloads).times.last!
        while try Self.timeline(payloads).times.last! < last + 6 {
            payloads.append(try await subscriber.messages.next(within: .seconds(30), "a location").payload)
        }
        let (times, duplicates) = try Self.timeline(payloads)
        #expect(times == Array(times.first!...times.last!), "a fix is missing or out of order: \(times)")
        print("MQTT outage test: \(times.count) fixes, \(duplicates) duplicates (QoS 1)")
        #expect(daemon.stderr.components(separatedBy: "retrying with backoff").count - 1 == 1)
        _ = try await daemon.stop()
    }

    @Test func theOutboxSurvivesSIGKILL() async throws {
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto(persistence: true)
        let topic = "owntracks/test/backlog"
        let subscriber = try await MosquittoSubscriber(
            port: broker.port, topic: topic, extra: ["-c", "-i", "locationd-test-backlog"])
        let url = "mqtt://127.0.0.1:\(broker.port)"
        let first = try await Self.daemon(directory.path, broker: url, topic: topic)
        let before = try Self.json(try await subscriber.messages.next(within: .seconds(30), "a location").payload)
        let lastSeen = try #require(before["tst"] as? Int)
        await broker.stop()
        try await waitUntil(seconds: 30) { (Self.mqttStatus(first)?["queued"] as? Int ?? 0) >= 3 }
        _ = try await first.stop(with: SIGKILL)
        try await broker.start()
        let daemon = try await Self.daemon(directory.path, broker: url, topic: topic)
        // The fixes queued before the kill arrive, oldest first, then the new run's.
        var payloads: [String] = []
        while try !Self.timeline(payloads).times.contains(lastSeen + 2) {
            payloads.append(try await subscriber.messages.next(within: .seconds(30), "the backlog").payload)
        }
        let times = try Self.timeline(payloads).times.filter { $0 > lastSeen }
        #expect(Array(times.prefix(2)) == [lastSeen + 1, lastSeen + 2], "backlog out of order: \(times)")
        _ = try await daemon.stop()
    }

    @Test func aWrongPasswordIsOneLineAndTheDaemonGoesOn() async throws {
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto(users: ["alice": "right"])
        let passwordFile = directory.path + "/password"
        try "wrong\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        let daemon = try await Self.daemon(
            directory.path, broker: "mqtt://alice@127.0.0.1:\(broker.port)", topic: "owntracks/alice/pw",
            extra: ["mqtt-password-file": passwordFile])
        try await waitUntil(seconds: 20) { daemon.stderr.contains("not authorised") }
        // Several retries later (the replay keeps counting fixes), still one line.
        let fixes: @Sendable () -> Int = { (try? Self.json(Self.status(daemon)))?["fixes"] as? Int ?? 0 }
        let start = fixes()
        try await waitUntil(seconds: 30) { fixes() >= start + 4 }
        #expect(daemon.stderr.components(separatedBy: "not authorised").count - 1 == 1, "\(daemon.stderr)")
        #expect(Self.mqttStatus(daemon)?["connected"] as? Bool == false)
        _ = try await daemon.stop()
    }

    @Test func tlsWithACertificateAuthorityMadeHere() async throws {
        let directory = try TemporaryDirectory()
        let authority = try await TestCertificateAuthority()
        let broker = try await Mosquitto(tls: authority)
        let topic = "owntracks/test/tls"
        let subscriber = try await MosquittoSubscriber(
            port: broker.port, topic: topic, extra: ["--cafile", authority.caFile])
        let daemon = try await Self.daemon(
            directory.path, broker: "mqtts://127.0.0.1:\(broker.port)", topic: topic,
            extra: ["mqtt-ca-file": authority.caFile])
        let message = try await subscriber.messages.next(within: .seconds(30), "a location over TLS")
        #expect(Self.isLocation(message))
        _ = try await daemon.stop()
    }

    /// How often `text` occurs in `log`.
    private static func occurrences(of text: String, in log: String) -> Int {
        log.components(separatedBy: text).count - 1
    }

    /// The fixes the daemon counted (`?STATUS;`).
    private static func fixes(_ daemon: DaemonProcess) -> Int {
        (try? json(status(daemon)))?["fixes"] as? Int ?? 0
    }

    /// The time of the daemon's last fix, as OwnTracks' `tst` (`?STATUS;`).
    private static func lastFixTime(_ daemon: DaemonProcess) throws -> Int {
        let text = try #require(try json(status(daemon))["lastFix"] as? String)
        return Int(
            try Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)).timeIntervalSince1970)
    }

    /// The walk's first fix time, as OwnTracks' `tst`.
    private static var walkStart: Int { Int(ReplaySampleTracks.walkFixes().first!.time!.timeIntervalSince1970) }

    /// Reads `subscriber`'s messages until a location at `time` or later arrived; the
    /// first may take the daemon's longest reconnect delay (30 s).
    private static func payloads(from subscriber: MosquittoSubscriber, until time: Int) async throws -> [String] {
        var payloads: [String] = []
        while try timeline(payloads).times.last ?? 0 < time {
            payloads.append(try await subscriber.messages.next(within: .seconds(45), "a location").payload)
        }
        return payloads
    }

    /// A "broker" that accepts each TCP connection and closes it: one line, a backoff
    /// between tries, the daemon goes on and keeps every message; once a real broker
    /// listens on that port, everything arrives, from the first fix, in order.
    @Test func aBrokerThatDropsEveryConnectionIsOneLineAndLosesNothing() async throws {
        let directory = try TemporaryDirectory()
        let listener = try DroppingListener()
        let topic = "owntracks/test/dropping"
        let daemon = try await Self.daemon(directory.path, broker: "mqtt://127.0.0.1:\(listener.port)", topic: topic)
        let first = try await listener.accepted.next(within: .seconds(30), "the first connection")
        // Fixes keep coming and the outbox keeps growing while the broker drops the daemon.
        let (fixes, queued) = (Self.fixes(daemon), Self.mqttStatus(daemon)?["queued"] as? Int ?? 0)
        try await waitUntil(seconds: 30) {
            Self.fixes(daemon) >= fixes + 2 && Self.mqttStatus(daemon)?["queued"] as? Int ?? 0 >= queued + 2
        }
        _ = try await listener.accepted.next(within: .seconds(30), "the second connection")
        let third = try await listener.accepted.next(within: .seconds(30), "the third connection")
        // A backoff (1 s, then 2 s), not a flood of tries.
        #expect(third.timeIntervalSince(first) >= 2.5)
        let log = daemon.stderr
        #expect(Self.occurrences(of: "retrying with backoff", in: log) == 1, "\(log)")
        #expect(log.contains("closed the connection before accepting it"), "\(log)")
        #expect(Self.mqttStatus(daemon)?["connected"] as? Bool == false)
        // The daemon's next try comes 4 s after the third: a real broker is there by then.
        listener.stop()
        let broker = try await Mosquitto(port: listener.port)
        let subscriber = try await MosquittoSubscriber(port: broker.port, topic: topic)
        let now = try Self.lastFixTime(daemon)
        let (times, _) = try Self.timeline(try await Self.payloads(from: subscriber, until: now + 2))
        // The publisher attaches to the location as the daemon starts; under load the
        // replay's first fix may come before it (that fix is never queued).
        #expect(times.first ?? .max <= Self.walkStart + 2, "the first fixes are missing: \(times)")
        #expect(times == Array(times.first!...times.last!), "a fix is missing or out of order: \(times)")
        // The line comes with the first PUBACK the daemon reads, which can be after the
        // subscriber got the backlog (PUBACKs are read in batches).
        try await waitUntil(seconds: 30) { daemon.stderr.contains("connected again") }
        #expect(Self.occurrences(of: "connected again", in: daemon.stderr) == 1, "\(daemon.stderr)")
        _ = try await daemon.stop()
    }

    /// The outbox on a full disk, made by a file size limit (RLIMIT_FSIZE, through
    /// prlimit(1)) set on the running daemon once the outbox's WAL is past it, so that
    /// every write to it fails (EFBIG: the daemon ignores SIGXFSZ, which would kill it). One
    /// line; the daemon goes on; the messages that could not be stored are counted as
    /// dropped (no broker to send them to); the ones stored before are kept and, once
    /// the limit is lifted and a broker listens, arrive from the first fix, in order.
    @Test func aFullDiskKeepsWhatIsQueuedAndTheDaemonGoesOn() async throws {
        let directory = try TemporaryDirectory()
        let port = try GPSFake.freeLoopbackPort()
        let topic = "owntracks/test/full"
        let daemon = try await Self.daemon(
            directory.path, broker: "mqtt://127.0.0.1:\(port)", topic: topic)
        let pid = daemon.process.processIdentifier
        let limit = 65_536
        let wal = daemon.dataDirectory + "/" + MQTTOutbox.fileName + "-wal"
        try await waitUntil(seconds: 60) {
            ((try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0) > limit
                && ((try? Self.lastFixTime(daemon)) ?? 0) >= Self.walkStart + 3
        }
        // Fixes up to the one before this were stored, whatever happens next.
        let stored = try Self.lastFixTime(daemon) - 1
        let limited = try await runProgram("/usr/bin/prlimit", ["--pid", "\(pid)", "--fsize=\(limit):"])
        try #require(limited.status == 0, "prlimit: \(limited.stderr)")
        try await waitUntil(seconds: 30) { daemon.stderr.contains("MQTT outbox: ") }
        let fixes = Self.fixes(daemon)
        try await waitUntil(seconds: 30) { Self.fixes(daemon) >= fixes + 3 }
        #expect(Self.occurrences(of: "MQTT outbox: ", in: daemon.stderr) == 1, "\(daemon.stderr)")
        #expect(Self.mqttStatus(daemon)?["dropped"] as? Int ?? 0 >= 3)
        let lifted = try await runProgram("/usr/bin/prlimit", ["--pid", "\(pid)", "--fsize=unlimited:"])
        try #require(lifted.status == 0, "prlimit: \(lifted.stderr)")
        try await waitUntil(seconds: 30) { daemon.stderr.contains("MQTT outbox writable again") }
        let broker = try await Mosquitto(port: port)
        let subscriber = try await MosquittoSubscriber(port: broker.port, topic: topic)
        let now = try Self.lastFixTime(daemon)
        let (times, _) = try Self.timeline(try await Self.payloads(from: subscriber, until: now + 2))
        // The publisher attaches to the location as the daemon starts; under load the
        // replay's first fix may come before it (that fix is never queued).
        #expect(times.first ?? .max <= Self.walkStart + 2, "the first fixes are missing: \(times)")
        #expect(
            Array(times.prefix { $0 <= stored }) == Array(min(times.first ?? stored, stored)...stored),
            "a fix stored before the disk was full is missing: \(times)")
        #expect(times == times.sorted(), "out of order: \(times)")
        #expect(times.contains(now + 1), "the fixes after the disk had room again are missing: \(times)")
        _ = try await daemon.stop()
    }

    /// A bad topic from the configuration file or the environment (where `#` is not
    /// a comment): exit 64, one line. `timeout`: a daemon that took the topic fails the
    /// test (status 124) instead of running on.
    @Test(
        arguments: [
            (nil, "owntracks/+/pi", "has a wildcard"),
            ("LOCATIOND_MQTT_TOPIC", "owntracks/+/pi", "has a wildcard"),
            ("LOCATIOND_MQTT_TOPIC", "owntracks/#", "has a wildcard"),
            ("LOCATIOND_MQTT_TOPIC", String(repeating: "a", count: 65_536), "MQTT allows at most 65535"),
        ] as [(String?, String, String)])
    func badTopicsExit64WithOneLine(variable: String?, topic: String, message: String) async throws {
        let directory = try TemporaryDirectory()
        var setting: [String] = []
        if let variable {
            setting = ["\(variable)=\(topic)"]
        } else {
            let config = directory.path + "/locationd.conf"
            try "mqtt-topic = \(topic)\n".write(toFile: config, atomically: true, encoding: .utf8)
            setting = ["--config", config]
        }
        let run = try await runProgram(
            "/usr/bin/timeout",
            ["20", "/usr/bin/env"] + (variable == nil ? [] : setting) + [
                locationdBinary().path, "run", "--data-dir", directory.path + "/data", "--source", "simulated",
                "--mqtt", "mqtt://127.0.0.1",
            ] + (variable == nil ? setting : []))
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr.prefix(300))")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr.prefix(300))")
    }

    @Test(arguments: [
        (["--mqtt", "ftp://broker"], "mqtt must be mqtt://"),
        (["--mqtt", "mqtt://broker:99999"], "mqtt must be mqtt://"),
    ])
    func badSettingsExit64WithOneLine(arguments: [String], message: String) async throws {
        try await expectRunRefuses(arguments, saying: message)
    }

    @Test func theDaemonConfigurationDelegatesTheMQTTKeys() throws {
        var configuration = DaemonConfiguration(dataDirectory: "/tmp/x")
        try configuration.apply(
            file: "mqtt = mqtts://alice@broker:8884\nmqtt-min-interval = 30s\nmqtt-discovery = on\n", path: "l.conf")
        #expect(configuration.mqtt.host == "broker")
        #expect(configuration.mqtt.port == 8884)
        #expect(configuration.mqtt.tls)
        #expect(configuration.mqtt.policy.minimumInterval == 30)
        #expect(configuration.mqtt.discovery)
        #expect(configuration.keysDiffering(from: DaemonConfiguration(dataDirectory: "/tmp/x")) == ["mqtt"])
        #expect {
            try configuration.apply(file: "mqtt-topic = a/+/b\n", path: "l.conf")
        } throws: { error in
            (error as? LocationError)?.message.hasPrefix("l.conf:1: the MQTT topic 'a/+/b' has a wildcard") == true
        }
    }
}
