import Foundation
import LocationProviders
import LocationState
import LocationTimeline

/// The motion tracker's state as the timeline stores it every 5 s of fixes
/// (`TimelineStore.record`), encoded by `JSONLineEncoder` against Foundation's
/// `JSONEncoder` on the same value: the tracker of a commute halfway through its second
/// drive (a stay closing behind it, a trip under way, a stay candidate), the state a
/// moving daemon saves. Both encoders encode the same `Codable` conformance; ours keeps
/// the members in the order the value encodes them, Foundation's in a dictionary's.
/// Five alternating rounds of 20,000 encodings each; the medians are compared.
func jsonBenchmark() async throws {
    var tracker = MotionTracker()
    var random = SplitMix64(seed: 7)
    var (latitude, longitude) = (47.3782, 8.5401)
    var time = Date(timeIntervalSince1970: 1_789_455_000)
    // Parked 10 min, a drive of 3 min, parked 10 min, then 90 s of the next drive.
    for (seconds, speed) in [(600, 0.0), (180, 12.0), (600, 0.0), (90, 12.0)] {
        for _ in 0..<seconds {
            time.addTimeInterval(1)
            latitude += speed / 111_195 + random.uniform(-2e-6, 2e-6)
            longitude += random.uniform(-3e-6, 3e-6)
            _ = tracker.ingest(
                Location(
                    time: time, mode: .threeD, lat: latitude, lon: longitude, speed: speed + random.uniform(0, 0.3),
                    source: .gpsd))
        }
    }
    let ours = JSONLineEncoder()
    let bytes = try ours.encode(tracker).utf8.count
    let foundation = JSONEncoder()
    let rounds = 5
    let count = Int(ProcessInfo.processInfo.environment["LOCATIOND_BENCH_JSON_COUNT"] ?? "") ?? 20_000
    var mine: [Double] = []
    var theirs: [Double] = []
    for _ in 0..<rounds {
        let start = ContinuousClock.now
        for _ in 0..<count { _ = try ours.encode(tracker) }
        mine.append(seconds(since: start) / Double(count) * 1e6)
        let peerStart = ContinuousClock.now
        for _ in 0..<count { _ = try foundation.encode(tracker) }
        theirs.append(seconds(since: peerStart) / Double(count) * 1e6)
    }
    let (our, their) = (percentiles(mine).median, percentiles(theirs).median)
    print("the tracker's state: \(bytes) bytes of JSON")
    print(String(format: "JSONLineEncoder: %.1f us an encoding (median of %d rounds)", our, rounds))
    print(String(format: "Foundation JSONEncoder: %.1f us an encoding", their))
    print(
        String(
            format: "json: ratio %.2f vs Foundation JSONEncoder (%.1f us against %.1f us)", their / our, our, their))
}

/// Seconds from `start` to now.
private func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}
