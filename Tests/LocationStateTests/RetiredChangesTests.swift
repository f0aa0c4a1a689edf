import Dispatch
import LocationTestSupport
import Testing

@testable import LocationState

/// Which thread frees a change's box: the state keeps a burst's recent boxes so that
/// its own thread usually drops the last reference (see `RetiredChanges`).
@Suite(.timeLimit(.minutes(10)))
struct RetiredChangesTests {
    /// 1 ms and more between changes ends a burst.
    static let millisecond: UInt64 = 1_000_000

    @Test func aBurstKeepsItsRecentBoxesUpToTheCapacity() {
        var retired = RetiredChanges<Int>()
        let capacity = RetiredChanges<Int>.capacity
        var first: StateChange<Int>.Values?
        weak var firstBox: StateChange<Int>.Values?
        for index in 0..<capacity {
            let change = StateChange(old: index, new: index + 1)
            if index == 0 {
                first = change.values
                firstBox = change.values
            }
            retired.keep(change, now: 10 * Self.millisecond + UInt64(index) * 1_000)
        }
        #expect(retired.boxes.count == capacity)
        first = nil
        #expect(firstBox != nil, "kept while the burst lasts")
        retired.keep(StateChange(old: 0, new: 0), now: 10 * Self.millisecond + UInt64(capacity) * 1_000)
        #expect(retired.boxes.count == capacity)
        #expect(firstBox == nil, "the oldest box is dropped by the change that replaces it")
        _ = first
    }

    @Test func changesFarApartKeepOnlyTheNewestBox() {
        var retired = RetiredChanges<Int>()
        weak var earlier: StateChange<Int>.Values?
        do {
            let change = StateChange(old: 1, new: 2)
            earlier = change.values
            retired.keep(change, now: 100 * Self.millisecond)
        }
        #expect(earlier != nil)
        // A receiver at 10 Hz: 100 ms apart, never a burst, nothing more is kept.
        for step in 1...5 {
            retired.keep(StateChange(old: step, new: step + 1), now: UInt64(100 + 100 * step) * Self.millisecond)
            #expect(retired.boxes.count == 1)
        }
        #expect(earlier == nil)
    }

    @Test func aStateWithListenersStillDeliversEveryChangeOfABurst() async throws {
        let state = MonitoredState(key: "burst", initialValue: 0)
        let received = Locked<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        let count = RetiredChanges<Int>.capacity * 3
        let observation = state.observe { change in
            let total = received.withLock { values in
                values.append(change.new)
                return values.count
            }
            if total == count { done.signal() }
        }
        defer { observation.cancel() }
        for value in 1...count { state ~> value }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(received.withLock { $0 } == Array(1...count))
    }
}
