import Foundation
import LocationState
import LocationStores
import Testing

/// Events in arrival order, and a way to await the n-th one without sleeping.
package final class TileEventLog<Event: Sendable>: Sendable {
    package init() {}

    private struct Waiter {
        var id: UInt64
        var count: Int
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var events: [Event] = []
        var waiters: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    package var events: [Event] { state.withLock { $0.events } }

    package func append(_ event: Event) {
        let ready = state.withLock { state in
            state.events.append(event)
            let ready = state.waiters.filter { $0.count <= state.events.count }
            state.waiters.removeAll { $0.count <= state.events.count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume(returning: true) }
    }

    /// Returns once `count` events have arrived; fails the test if that takes longer than `limit`.
    package func waitFor(
        count: Int, within limit: Duration = .seconds(10), sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let arrived = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.wait(count: count) }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(arrived, "\(count) events did not arrive within \(limit)", sourceLocation: sourceLocation)
    }

    private func wait(count: Int) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state in
                    if state.events.count >= count || Task.isCancelled { return true }
                    state.waiters.append(Waiter(id: id, count: count, continuation: continuation))
                    return false
                }
                if done { continuation.resume(returning: state.withLock { $0.events.count >= count }) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                let index = state.waiters.firstIndex { $0.id == id }
                return index.map { state.waiters.remove(at: $0) }
            }
            waiter?.continuation.resume(returning: false)
        }
    }
}

/// A tile sink in memory that can be told to fail, as a full disk or a locked database would.
package final class MemoryTileSink: TileSink {
    package init() {}

    /// Each write the sink accepted, in order.
    package let writes = TileEventLog<[TileRecord]>()
    /// Each write the sink refused.
    package let failures = TileEventLog<LocationError>()
    private let failure = Locked<LocationError?>(nil)

    /// Makes the following writes fail with `error`, or succeed again with `nil`.
    package func fail(with error: LocationError?) { failure.withLock { $0 = error } }

    package func write(_ batch: [TileRecord]) throws(LocationError) {
        if let error = failure.withLock({ $0 }) {
            failures.append(error)
            throw error
        }
        writes.append(batch)
    }

    /// What the sink holds per tile, merged over all accepted writes.
    package var stored: [Tile: TileRecord] {
        var result: [Tile: TileRecord] = [:]
        for record in writes.events.joined() {
            if var known = result[record.tile] {
                known.merge(record)
                result[record.tile] = known
            } else {
                result[record.tile] = record
            }
        }
        return result
    }
}

/// A wall clock that moves only when told to.
package final class TileTestClock: Sendable {
    private let current: Locked<Date>

    package init(_ start: Date) { current = Locked(start) }

    /// The time now.
    package var now: Date { current.withLock { $0 } }

    /// Moves the clock forward.
    package func advance(by seconds: Double) { current.withLock { $0 += seconds } }
}

/// Fixes, times, directories and loggers for the tile tests.
package enum TileFixtures {

    /// A fix at a place and time, as a receiver with a good 3D fix reports it.
    package static func fix(_ latitude: Double, _ longitude: Double, at seconds: Double, eph: Double? = 5) -> Location {
        Location(
            time: time(seconds), mode: .threeD, lat: latitude, lon: longitude, eph: eph, source: .replay)
    }

    /// The time ``fix(_:_:at:eph:)`` gives a fix at `seconds`: that many seconds after 2027-01-15 08:00 UTC.
    package static func time(_ seconds: Double) -> Date { Date(timeIntervalSince1970: 1_800_000_000 + seconds) }

    /// A new empty directory under the system's temporary directory.
    package static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
