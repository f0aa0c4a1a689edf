import Dispatch
import LocationTestSupport
import Testing

@testable import LocationState

@Suite(.timeLimit(.minutes(10))) struct StateTests {
    @Test func modifyChangesTheValueAndReturnsTheBodysResult() {
        let state = State(key: "counter", initialValue: 1)
        let doubled = state.modify { value -> Int in
            value += 1
            return value * 2
        }
        #expect(state.value == 2)
        #expect(doubled == 4)
        state ~> 7
        #expect(state.value == 7)
        #expect(state.key == "counter")
    }

    @Test func aThrowingModifyLeavesTheValueAndNotifiesNobody() async throws {
        struct Refused: Error {}
        let state = MonitoredState(key: "counter", initialValue: 1)
        let recorder = Recorder<Int>()
        state.addListener(recorder)
        #expect(throws: Refused.self) {
            try state.modify { value in
                value = 99
                throw Refused()
            }
        }
        #expect(state.value == 1)
        state ~> 2
        try await recorder.wait(forCount: 1)
        #expect(recorder.changes == [StateChange(old: 1, new: 2)])
    }

    @Test func didModifySeesEveryModificationInOrder() {
        final class Counting: State<Int>, @unchecked Sendable {
            // `@unchecked` as its superclass; the one added property is a `let` of a `Sendable` type.
            let seen = Locked<[StateChange<Int>]>([])
            override func didModify(from old: Int, to new: Int) {
                seen.withLock { $0.append(StateChange(old: old, new: new)) }
            }
        }
        let state = Counting(key: "counter", initialValue: 0)
        for value in 1...3 { state ~> value }
        #expect(state.seen.withLock { $0 } == [.init(old: 0, new: 1), .init(old: 1, new: 2), .init(old: 2, new: 3)])
    }
}
