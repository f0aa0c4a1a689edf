import Dispatch
import LocationState
import OpenCombine
import OpenCombineDispatch
import Synchronization

/// Fan-out: one value modified 1,000,000 times, delivered to 8 consumers each on its
/// own queue, every value in order; MonitoredState against OpenCombine's
/// `CurrentValueSubject` + `receive(on:)` and against `AsyncStream`.
func fanout() async throws {
    let updates = 1_000_000
    let consumers = 8

    let ours = try await fanoutMonitoredState(updates: updates, consumers: consumers)
    ours.print(system: "MonitoredState, \(consumers) StateListeners on own DispatchQueues (.all)")
    let combine = try await fanoutOpenCombine(updates: updates, consumers: consumers)
    combine.print(system: "OpenCombine 0.14 CurrentValueSubject, \(consumers) receive(on: DispatchQueue) sinks")
    let stream = try await fanoutAsyncStream(updates: updates, consumers: consumers)
    stream.print(system: "AsyncStream (unbounded), \(consumers) consumer tasks")

    let ratio = ours.updatesPerSecond / combine.updatesPerSecond
    print(
        "fanout: ratio \(String(format: "%.1f", ratio)) vs OpenCombine receive(on:), "
            + "ordered=\(ours.outOfOrder == 0 ? "yes" : "no"), lost=\(ours.lost)")
}

/// What one system achieved, summed over its consumers.
struct FanoutResult {
    let updates: Int
    let seconds: Double
    let lost: Int
    let outOfOrder: Int

    var updatesPerSecond: Double { Double(updates) / seconds }

    func print(system: String) {
        Swift.print(
            "\(system): \(metric(updatesPerSecond)) updates/s (\(updates) updates in "
                + "\(String(format: "%.2f", seconds)) s), ordered=\(outOfOrder == 0 ? "yes" : "no"), lost=\(lost)")
    }
}

/// Checks that one consumer sees 1, 2, 3, ... `updates`, and signals when it saw the last.
///
/// Each system calls `receive` for one checker from one queue or task at a time;
/// the atomics make the counts readable from the measuring thread afterwards.
final class OrderChecker: Sendable {
    private let updates: Int
    private let last = Atomic<Int>(0)
    private let received = Atomic<Int>(0)
    private let outOfOrder = Atomic<Int>(0)
    private let done: DispatchGroup

    init(updates: Int, done: DispatchGroup) {
        self.updates = updates
        self.done = done
        done.enter()
    }

    func receive(_ value: Int) {
        let previous = last.load(ordering: .relaxed)
        if value != previous + 1 { outOfOrder.add(1, ordering: .relaxed) }
        last.store(value, ordering: .relaxed)
        received.add(1, ordering: .relaxed)
        if value == updates { done.leave() }
    }

    var lost: Int { updates - received.load(ordering: .relaxed) }
    var misordered: Int { outOfOrder.load(ordering: .relaxed) }
}

/// Waits for every checker to see its last value, for at most a minute.
private func result(updates: Int, seconds: Double, checkers: [OrderChecker]) -> FanoutResult {
    FanoutResult(
        updates: updates, seconds: seconds,
        lost: checkers.map(\.lost).reduce(0, +), outOfOrder: checkers.map(\.misordered).reduce(0, +))
}

private func waitOrGiveUp(_ done: DispatchGroup) {
    if done.wait(timeout: .now() + .seconds(120)) == .timedOut {
        Swift.print("fanout: gave up waiting after 120 s; counting what arrived")
    }
}

private final class CheckingListener: StateListener {
    let checker: OrderChecker
    init(_ checker: OrderChecker) { self.checker = checker }
    func stateDidChange(_ change: StateChange<Int>) { checker.receive(change.new) }
}

private func fanoutMonitoredState(updates: Int, consumers: Int) async throws -> FanoutResult {
    let done = DispatchGroup()
    let state = MonitoredState(key: "fanout", initialValue: 0)
    let listeners = (0..<consumers).map { _ in CheckingListener(OrderChecker(updates: updates, done: done)) }
    for (index, listener) in listeners.enumerated() {
        state.addListener(listener, on: DispatchQueue(label: "fanout.ours.\(index)"), policy: .all)
    }
    let elapsed = await seconds {
        for value in 1...updates { state ~> value }
        waitOrGiveUp(done)
    }
    return result(updates: updates, seconds: elapsed, checkers: listeners.map(\.checker))
}

private func fanoutOpenCombine(updates: Int, consumers: Int) async throws -> FanoutResult {
    let done = DispatchGroup()
    let subject = CurrentValueSubject<Int, Never>(0)
    let checkers = (0..<consumers).map { _ in OrderChecker(updates: updates, done: done) }
    let cancellables = checkers.enumerated().map { index, checker in
        subject
            .dropFirst()
            .receive(on: DispatchQueue(label: "fanout.combine.\(index)").ocombine)
            .sink { checker.receive($0) }
    }
    let elapsed = await seconds {
        for value in 1...updates { subject.send(value) }
        waitOrGiveUp(done)
    }
    withExtendedLifetime(cancellables) {}
    return result(updates: updates, seconds: elapsed, checkers: checkers)
}

private func fanoutAsyncStream(updates: Int, consumers: Int) async throws -> FanoutResult {
    let done = DispatchGroup()
    let checkers = (0..<consumers).map { _ in OrderChecker(updates: updates, done: done) }
    let streams = checkers.map { _ in AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded) }
    let tasks = zip(streams, checkers).map { stream, checker in
        Task.detached {
            for await value in stream.stream { checker.receive(value) }
        }
    }
    let elapsed = await seconds {
        for value in 1...updates {
            for stream in streams { stream.continuation.yield(value) }
        }
        for stream in streams { stream.continuation.finish() }
        for task in tasks { await task.value }
    }
    return result(updates: updates, seconds: elapsed, checkers: checkers)
}
