import Dispatch
import LocationTestSupport
import Testing

@testable import LocationState

@Suite(.timeLimit(.minutes(10))) struct MonitoredStateTests {
    /// Modifies `state` `count` times from `threads` threads at once, each time to a
    /// new distinct value, and returns the values in the order they were applied.
    private func modifyConcurrently(_ state: MonitoredState<Int>, count: Int, threads: Int = 4) -> [Int] {
        let applied = Locked<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<(count / threads) {
                state.modify { value in
                    value = thread * count + index + 1
                    applied.withLock { $0.append(value) }
                }
            }
        }
        return applied.withLock { $0 }
    }

    @Test func anAllListenerGetsEveryValueOfConcurrentWritersInApplyOrder() async throws {
        let state = MonitoredState(key: "counter", initialValue: 0)
        let recorder = Recorder<Int>()
        state.addListener(recorder, on: DispatchQueue(label: "listener"), policy: .all)

        let applied = modifyConcurrently(state, count: 10_000)

        try await recorder.wait(forCount: 10_000)
        let changes = recorder.changes
        #expect(applied.count == 10_000)
        #expect(Set(changes.map(\.new)).count == 10_000)
        #expect(changes.map(\.new) == applied)
        #expect(changes.map(\.old) == [0] + applied.dropLast())
    }

    @Test func aLatestListenerCoalescesWhileBehindAndEndsOnTheFinalValue() async throws {
        let state = MonitoredState(key: "counter", initialValue: 0)
        let release = DispatchSemaphore(value: 0)
        let isFirst = Locked(true)
        let recorder = Recorder<Int> { _ in
            if isFirst.withLock({ $0 }) { release.wait() }
            isFirst.withLock { $0 = false }
        }
        state.addListener(recorder, policy: .latest)
        state ~> -1
        let applied = modifyConcurrently(state, count: 10_000)
        release.signal()

        let final = state.value
        #expect(final == applied.last)
        try await recorder.wait(for: "the final value") { $0.last?.new == final }
        let changes = recorder.changes
        #expect(changes.count == 2, "everything after the blocked first delivery coalesces into one change")
        #expect(changes.first?.old == 0)
        #expect(changes.last?.old == changes.first?.new)
    }

    @Test func aBlockedListenerDelaysNeitherModifyNorOtherListeners() async throws {
        let state = MonitoredState(key: "counter", initialValue: 0)
        let release = DispatchSemaphore(value: 0)
        let blocked = Recorder<Int> { _ in release.wait() }
        let quick = Recorder<Int>()
        state.addListener(blocked)
        state.addListener(quick)

        for value in 1...1_000 { state ~> value }
        try await quick.wait(forCount: 1_000)
        #expect(blocked.changes.isEmpty)

        for _ in 1...1_000 { release.signal() }
        try await blocked.wait(forCount: 1_000)
        #expect(blocked.changes == quick.changes)
    }

    @Test func aReleasedWeakListenerStopsReceivingAndIsRemoved() async throws {
        let state = MonitoredState(key: "counter", initialValue: 0)
        let queue = DispatchQueue(label: "listeners")
        let seenByReleased = Locked<[Int]>([])
        var released: Recorder<Int>? = Recorder { change in seenByReleased.withLock { $0.append(change.new) } }
        weak let weakReleased = released
        let witness = Recorder<Int>()
        state.addListener(released!, on: queue)
        state.addListener(witness, on: queue)

        state ~> 1
        try await witness.wait(forCount: 1)
        released = nil
        #expect(weakReleased == nil)
        state ~> 2
        try await witness.wait(forCount: 2)
        try await drain(queue)

        #expect(seenByReleased.withLock { $0 } == [1])
        #expect(state.listenerCount == 1)
    }

    @Test func removeListenerStopsDelivery() async throws {
        let state = MonitoredState(key: "counter", initialValue: 0)
        let queue = DispatchQueue(label: "listeners")
        let removed = Recorder<Int>()
        let witness = Recorder<Int>()
        state.addListener(removed, on: queue)
        state.addListener(witness, on: queue)
        state ~> 1
        try await witness.wait(forCount: 1)
        state.removeListener(removed)
        state ~> 2
        try await witness.wait(forCount: 2)
        #expect(removed.changes.map(\.new) == [1])
        #expect(state.listenerCount == 1)
    }

    @Test func cancellingOrReleasingTheTokenStopsAClosureObserver() async throws {
        let state = MonitoredState(key: "counter", initialValue: 0)
        let queue = DispatchQueue(label: "listeners")
        let cancelled = Recorder<Int>()
        let released = Recorder<Int>()
        let witness = Recorder<Int>()
        let cancelledToken = state.observe(on: queue) { cancelled.stateDidChange($0) }
        var releasedToken: StateObservation? = state.observe(on: queue) { released.stateDidChange($0) }
        let witnessToken = state.observe(on: queue) { witness.stateDidChange($0) }

        state ~> 1
        try await witness.wait(forCount: 1)
        cancelledToken.cancel()
        releasedToken = nil
        state ~> 2
        try await witness.wait(forCount: 2)

        #expect(cancelled.changes.map(\.new) == [1])
        #expect(released.changes.map(\.new) == [1])
        #expect(releasedToken == nil)
        #expect(state.listenerCount == 1)
        withExtendedLifetime(witnessToken) {}
    }

    @Test func cancellingFromInsideTheObserverStopsTheRestOfTheBatch() async throws {
        let state = MonitoredState(key: "counter", initialValue: 0)
        let queue = DispatchQueue(label: "observer")
        let token = Locked<StateObservation?>(nil)
        let recorder = Recorder<Int> { _ in token.withLock { $0 }?.cancel() }
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }
        token.withLock { $0 = state.observe(on: queue) { recorder.stateDidChange($0) } }

        for value in 1...3 { state ~> value }
        gate.signal()
        try await drain(queue)

        #expect(recorder.changes.map(\.new) == [1])
    }

    @Test func theAsyncSequenceDeliversEveryChangeInOrder() async throws {
        let state = MonitoredState(key: "counter", initialValue: 0)
        let changes = state.changes
        DispatchQueue.global().async {
            for value in 1...1_000 { state ~> value }
        }
        let received = try await withTimeLimit("1,000 changes from the async sequence") {
            var received: [StateChange<Int>] = []
            for await change in changes {
                received.append(change)
                if received.count == 1_000 { break }
            }
            return received
        }
        #expect(received.map(\.new) == Array(1...1_000))
        #expect(received.map(\.old) == Array(0..<1_000))
    }

    @Test func theAsyncSequenceEndsWhenTheStateIsReleased() async throws {
        var state: MonitoredState<Int>? = MonitoredState(key: "counter", initialValue: 0)
        let changes = state!.changes(policy: .latest)
        state! ~> 1
        state = nil
        let received = try await withTimeLimit("the end of the sequence") {
            var received: [Int] = []
            for await change in changes { received.append(change.new) }
            return received
        }
        #expect(received == [1])
    }

    @Test func cancellingTheIteratingTaskEndsTheSequenceAndReleasingItDetaches() async throws {
        let state = MonitoredState(key: "counter", initialValue: 0)
        let changes = state.changes
        let consumer = Task {
            var received = 0
            for await _ in changes { received += 1 }
            return received
        }
        state ~> 1
        consumer.cancel()
        let received = try await withTimeLimit("the cancelled loop to end") { await consumer.value }
        #expect(received <= 1)
        #expect(state.listenerCount == 0, "cancelling detached the sequence")

        do {
            let unused = state.changes(policy: .latest)
            #expect(state.listenerCount == 1)
            withExtendedLifetime(unused) {}
        }
        #expect(state.listenerCount == 0, "releasing the sequence detached it")
    }

    @Test func theCurrentValueIsDeliveredFirstWhenAsked() async throws {
        let state = MonitoredState(key: "counter", initialValue: 5)
        let recorder = Recorder<Int>()
        state.addListener(recorder, sendingCurrentValue: true)
        let changes = state.changes(sendingCurrentValue: true)
        let token = state.observe(sendingCurrentValue: false) { _ in Issue.record("not asked for the current value") }
        token.cancel()
        state ~> 6

        try await recorder.wait(forCount: 2)
        #expect(recorder.changes == [StateChange(old: 5, new: 5), StateChange(old: 5, new: 6)])
        let first = try await withTimeLimit("the first element") {
            var iterator = changes.makeAsyncIterator()
            return [await iterator.next(), await iterator.next()]
        }
        #expect(first == [StateChange(old: 5, new: 5), StateChange(old: 5, new: 6)])
    }

    @Test func aFilteredObserverGetsOnlyTheChangesItAcceptsAndTheCurrentValue() async throws {
        let state = MonitoredState(key: "counter", initialValue: 1)
        let queue = DispatchQueue(label: "listeners")
        let filtered = Recorder<Int>()
        let witness = Recorder<Int>()
        let filteredToken = state.observe(on: queue, sendingCurrentValue: true, filter: { $0.new % 2 == 0 }) {
            filtered.stateDidChange($0)
        }
        let witnessToken = state.observe(on: queue) { witness.stateDidChange($0) }
        for value in 2...6 { state ~> value }
        try await witness.wait(forCount: 5)
        try await drain(queue)
        #expect(
            filtered.changes == [
                StateChange(old: 1, new: 1), StateChange(old: 1, new: 2), StateChange(old: 3, new: 4),
                StateChange(old: 5, new: 6),
            ])
        withExtendedLifetime((filteredToken, witnessToken)) {}
    }

    @Test func aListenerMayModifyTheStateItListensTo() async throws {
        let state = MonitoredState(key: "counter", initialValue: 0)
        let recorder = Recorder<Int> { change in
            if change.new < 10 { state.modify { $0 += 1 } }
        }
        state.addListener(recorder)
        state ~> 1
        try await recorder.wait(for: "the listener's own modifications up to 10") { $0.last?.new == 10 }
        #expect(recorder.changes.map(\.new) == Array(1...10))
    }

    @Test func anActorCanConsumeChangesOnItsOwnExecutor() async throws {
        actor Sum {
            var total = 0
            func consume(_ changes: StateChanges<Int>, count: Int) async -> Int {
                var seen = 0
                for await change in changes {
                    total += change.new
                    seen += 1
                    if seen == count { break }
                }
                return total
            }
        }
        let state = MonitoredState(key: "counter", initialValue: 0)
        let changes = state.changes
        for value in 1...100 { state ~> value }
        let sum = Sum()
        let total = try await withTimeLimit("the actor's sum") { await sum.consume(changes, count: 100) }
        #expect(total == 5_050)
    }
}
