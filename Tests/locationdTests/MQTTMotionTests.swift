import Foundation
import LocationMQTT
import LocationState
import LocationTestSupport
import LocationTimeline
import Testing

/// The daemon's motion over MQTT, against a real gpsd (gpsfake) and a real Mosquitto: a
/// parked receiver's hour, replayed fast, sends its first fix, the stop once it is
/// recognised (stay-duration) and a heartbeat every `mqtt-stopped-interval`; the
/// motion, and Home Assistant's discovery of the moving sensor and today's distance.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct MQTTMotionTests {
    @Test func aParkedHourSendsTheStopAndTheHeartbeatsOnly() async throws {
        let track = ParkedTrack([.parked(seconds: 3600)])
        let start = try #require(track.fixes.first?.time)
        let log = try track.write(name: "parked-hour")
        defer { try? FileManager.default.removeItem(at: log) }
        let gpsfake = try GPSFake(log: log, cycle: 0.002, once: true)
        defer { gpsfake.stop() }
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto()
        let topic = "locationd/test/parked"
        let subscriber = try await MosquittoSubscriber(port: broker.port, topic: topic + "/#")
        let discovery = try await MosquittoSubscriber(port: broker.port, topic: "homeassistant/#")
        let config = directory.path + "/locationd.conf"
        try "mqtt-locationd-topic = \(topic)\nmqtt-discovery = on\nmqtt-client-id = parked\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data",
            arguments: [
                "--source", "gpsd", "--gpsd", "127.0.0.1:\(gpsfake.port)", "--mqtt",
                "mqtt://127.0.0.1:\(broker.port)", "--config", config, "--freshness-timeout", "2",
            ])
        // Home Assistant learns of the moving sensor and today's distance.
        var components: Set<String> = []
        while components.count < 3 {
            let message = try await discovery.messages.next(within: .seconds(30), "the discovery configs")
            components.insert(String(message.topic.split(separator: "/")[1]))
            if message.topic == "homeassistant/binary_sensor/parked_moving/config" {
                let config = try #require(
                    try JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any])
                #expect(config["device_class"] as? String == "moving")
                #expect(config["state_topic"] as? String == topic + "/motion")
            }
        }
        #expect(components == ["device_tracker", "binary_sensor", "sensor"])

        try await gpsfake.startFeeding()
        // The hour is played once the fix goes stale (or the source is lost, when gpsd drops
        // the finished log's terminal); a clean stop then hands on the last
        // epoch and publishes `stopped` after everything else.
        var locations: [Int] = []
        var motions: [String] = []
        var timeline: [String] = []
        func note(_ message: (topic: String, payload: String)) {
            if message.topic == topic + "/location", let time = Self.time(in: message.payload) {
                locations.append(time)
            }
            if message.topic == topic + "/motion" { motions.append(message.payload) }
            if message.topic == topic + "/timeline" { timeline.append(message.payload) }
        }
        while true {
            let message = try await subscriber.messages.next(within: .seconds(60), "the live status")
            note(message)
            if message.topic == topic + "/status", message.payload.contains(#""state":"live""#) { break }
        }
        while true {
            let message = try await subscriber.messages.next(within: .seconds(120), "the end of the hour")
            note(message)
            if message.topic == topic + "/status",
                message.payload.contains(#""state":"stale""#) || message.payload.contains(#""state":"lost""#)
            {
                break
            }
        }
        _ = try await daemon.stop()
        while true {
            let message = try await subscriber.messages.next(within: .seconds(30), "the stopped status")
            if message.topic == topic + "/status", message.payload.contains(#""state":"stopped""#) { break }
            note(message)
        }
        // The first fix; before the stop is recognised (stay-duration) only a fix the
        // receiver says moves (none of a parked receiver's jitter and multipath); the
        // stop; then one every 15 min of the track: nothing else.
        let seconds = locations.map { $0 - Int(start.timeIntervalSince1970) }
        let fast = track.fixes.prefix(299).filter { ($0.speed ?? 0) >= PublishingPolicy.stillSpeed }.count
        #expect(seconds.filter { $0 < 299 }.count <= 1 + fast, "published at \(seconds) s")
        let stop = try #require(seconds.lastIndex { $0 < 400 }, "published at \(seconds) s")
        let afterStop = Array(seconds[stop...])
        #expect(afterStop[0] >= 299, "the stop at \(afterStop) s")
        #expect(afterStop.count >= 3, "published after the stop at \(afterStop) s")
        for (earlier, later) in zip(afterStop, afterStop.dropFirst()) {
            #expect(later - earlier >= 900, "heartbeats at \(afterStop) s")
        }
        #expect(afterStop.count <= 1 + (3600 - afterStop[0]) / 900, "published after the stop at \(afterStop) s")
        #expect(motions.contains { $0.contains(#""motion":"stopped""#) }, "\(motions)")
        #expect(!motions.contains { $0.contains(#""motion":"moving""#) }, "\(motions)")
        #expect(!timeline.contains { $0.contains(#""class":"TRIP""#) }, "\(timeline)")
    }

    /// The `time` of a TPV line, in whole seconds since 1970.
    static func time(in json: String) -> Int? {
        guard let range = json.range(of: #""time":""#) else { return nil }
        let text = json[range.upperBound...].prefix { $0 != "\"" }
        return UTCCalendar.parseISO8601(String(text)).map { Int($0.timeIntervalSince1970.rounded(.down)) }
    }
}
