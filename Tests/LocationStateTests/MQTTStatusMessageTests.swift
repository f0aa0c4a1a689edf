import Foundation
import LocationTestSupport
import Testing

@testable import LocationMQTT
@testable import LocationState

/// locationd's status lines on MQTT: the state with the last fix's own time, the clean
/// stop, and the last will.
@Suite(.timeLimit(.minutes(5)))
struct MQTTStatusMessageTests {
    private func decode(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func theStateItsTimeAndTheLastFix() throws {
        let status = try decode(
            MQTTStatusMessage.payload(
                .stale(.gpsd, lastFix: Date(timeIntervalSince1970: 100.5)), at: Date(timeIntervalSince1970: 105)))
        #expect(status["class"] as? String == "STATUS")
        #expect(status["state"] as? String == "stale")
        #expect(status["source"] as? String == "gpsd")
        #expect(status["lastFix"] as? String == "1970-01-01T00:01:40.500Z")
        #expect(status["time"] as? String == "1970-01-01T00:01:45.000Z")
    }

    @Test func theStopAndTheWill() throws {
        let stopped = try decode(MQTTStatusMessage.stopped(at: Date(timeIntervalSince1970: 42)))
        #expect(stopped as NSDictionary == ["class": "STATUS", "time": "1970-01-01T00:00:42.000Z", "state": "stopped"])
        let will = try decode(MQTTStatusMessage.lastWill)
        #expect(will as NSDictionary == ["class": "STATUS", "state": "offline"])
    }
}
