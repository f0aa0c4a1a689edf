import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// locationd's status topic through a real Mosquitto broker: the last will when the daemon
/// is killed, and at a clean stop `stopped` without a will and the retained motion made
/// `unknown`, so that nothing reads the device as moving after the daemon is gone.
@Suite(.serialized, .timeLimit(.minutes(5))) struct MQTTStatusTests {
    @Test func lastWillWhenTheDaemonIsKilled() async throws {
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto()
        let topic = "owntracks/test/will"
        let subscriber = try await MosquittoSubscriber(
            port: broker.port, topic: MQTTTests.locationdTopic(topic) + "/status")
        let daemon = try await MQTTTests.daemon(
            directory.path, broker: "mqtt://127.0.0.1:\(broker.port)", topic: topic, extra: ["mqtt-keepalive": "5"])
        _ = try await subscriber.messages.next(within: .seconds(30), "the live status") {
            $0.payload.contains(#""state":"live""#)
        }
        _ = try await daemon.stop(with: SIGKILL)
        let will = try await subscriber.messages.next(within: .seconds(20), "the last will")
        #expect(try MQTTTests.json(will.payload) as NSDictionary == ["class": "STATUS", "state": "offline"])
    }

    @Test func aGracefulStopSaysStoppedResetsTheMotionAndSendsNoWill() async throws {
        let directory = try TemporaryDirectory()
        let broker = try await Mosquitto()
        let topic = "owntracks/test/stop"
        let base = MQTTTests.locationdTopic(topic)
        let subscriber = try await MosquittoSubscriber(port: broker.port, topic: base + "/status")
        let motions = try await MosquittoSubscriber(port: broker.port, topic: base + "/motion")
        // The walk leaves 5 m from its start within seconds: the motion is `moving`.
        let daemon = try await MQTTTests.daemon(
            directory.path, broker: "mqtt://127.0.0.1:\(broker.port)", topic: topic,
            extra: ["mqtt-keepalive": "5", "stay-distance": "5"])
        _ = try await subscriber.messages.next(within: .seconds(30), "the live status") {
            $0.payload.contains(#""state":"live""#)
        }
        _ = try await motions.messages.next(within: .seconds(60), "the motion moving") {
            $0.payload.contains(#""motion":"moving""#)
        }
        let stopped = try await daemon.stop()
        #expect(stopped.status == 0)
        _ = try await subscriber.messages.next(within: .seconds(10), "the stopped status") {
            $0.payload.contains(#""state":"stopped""#)
        }
        // What a subscriber that comes now (Home Assistant after a restart) reads: the
        // retained motion is unknown, whatever it was while the daemon ran.
        let late = try await MosquittoSubscriber(port: broker.port, topic: base + "/motion")
        let motion = try await late.messages.next(within: .seconds(10), "the retained motion")
        #expect(motion.payload == #"{"class":"MOTION","motion":"unknown"}"#)
        // The daemon has exited: a broker that were to send the will (a connection closed
        // without DISCONNECT) has sent it already, so it would arrive before this marker.
        let marker = try await runProgram(
            "/usr/bin/mosquitto_pub",
            ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", base + "/status", "-m", "marker"])
        #expect(marker.status == 0)
        let next = try await subscriber.messages.next(within: .seconds(10), "the marker")
        #expect(next.payload == "marker", "expected no last will after a clean disconnect, got \(next.payload)")
    }
}
