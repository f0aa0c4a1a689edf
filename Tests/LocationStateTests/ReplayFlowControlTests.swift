import Dispatch
import LocationTestSupport
import Synchronization
import Testing

@testable import LocationProviders
@testable import LocationState

@Suite(.timeLimit(.minutes(10)))
struct ReplayFlowControlTests {
    /// A sender far faster than its listener: never more than the limit in flight, every
    /// change delivered, and the sender neither deadlocks nor returns from the final wait early.
    @Test(arguments: [1, 2, 8, 64])
    func keepsAtMostTheLimitInFlightAndDrains(limit: Int) {
        let control = ReplayFlowControl(limit: limit)
        let inFlight = Atomic<Int>(0)
        let highest = Atomic<Int>(0)
        let delivered = Atomic<Int>(0)
        let changes = 20_000
        let listener = DispatchQueue(label: "test.replay.listener")
        let done = DispatchSemaphore(value: 0)
        let idleCount = Atomic<Int>(-1)
        DispatchQueue.global().async {
            for _ in 0..<changes {
                control.acquire()
                let now = inFlight.add(1, ordering: .relaxed).newValue
                highest.max(now, ordering: .relaxed)
                listener.async {
                    inFlight.subtract(1, ordering: .relaxed)
                    delivered.add(1, ordering: .relaxed)
                    control.release()
                }
            }
            control.waitUntilIdle()
            idleCount.store(delivered.load(ordering: .relaxed), ordering: .relaxed)
            done.signal()
        }
        let finished = done.wait(timeout: .now() + 30) == .success
        #expect(finished, "the sender did not finish within 30 s")
        #expect(highest.load(ordering: .relaxed) <= limit)
        #expect(idleCount.load(ordering: .relaxed) == changes)
    }
}
