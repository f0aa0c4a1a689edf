import Dispatch

/// The path replayed fixes take: a `MonitoredState<Location?>`, as in the daemon, with
/// one `.all` listener that receives every change (`locationd replay` prints the fixes
/// and, with `--data-dir`, hands them to the daemon's stores).
///
/// Replay at `--speed max` produces fixes faster than any printer consumes them, and an
/// `.all` listener buffers what it has not yet received; so the pipeline lets at most
/// ``window`` changes be in flight: ``send(_:)`` blocks while the listener is that far
/// behind, until it is back to half of that. Memory stays bounded whatever the file's size.
///
/// Three threads share the work: the replay loop decodes and calls ``send(_:)``, a serial
/// queue puts the fixes into the state one `modify` at a time, in order, and the
/// listener's queue consumes them. With a `batchSize` above 1 (for `--speed max`), fixes
/// go to the state queue in batches, so that neither queue is woken for every fix.
public final class ReplayPipeline: Sendable {
    /// Changes allowed between ``send(_:)`` and the end of their delivery.
    public static let window = 8192

    /// The device's location: the current fix, or nil after a no-fix report.
    public let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
    /// Values sent to the state queue together; 1 sends each at once.
    public let batchSize: Int
    private let inFlight = ReplayFlowControl(limit: ReplayPipeline.window)
    private let stateQueue = DispatchQueue(label: "locationd.replay.state")
    private let batches = Locked(Batches())
    private let observation: StateObservation

    /// Batches of values on their way from ``send(_:)`` to the state queue, and back.
    ///
    /// A batch of 1024 fixes is about 200 KB: allocated anew for each, it came from
    /// fresh pages, page faults on both threads. Emptied batches keep their capacity and
    /// are filled again.
    private struct Batches {
        /// The values sent since the last batch went to the state queue (only
        /// ``send(_:)`` and ``drain()`` add to it).
        var filling: [Location?] = []
        /// Batches handed to the state queue and not yet taken by it, oldest first.
        var sent: [[Location?]] = []
        /// Emptied batches, to be filled again.
        var spare: [[Location?]] = []

        /// Moves `filling` to `sent`, and a spare batch, if any, to `filling`; false when
        /// `filling` is empty.
        mutating func send() -> Bool {
            guard !filling.isEmpty else { return false }
            sent.append(filling)
            filling = spare.popLast() ?? []
            return true
        }
    }

    /// A pipeline whose `listener` receives every change, in order, on its own serial queue.
    ///
    /// - Parameters:
    ///   - batchSize: 1 when fixes must reach the listener as soon as they are sent
    ///     (paced replay); at most a quarter of ``window``.
    ///   - listener: takes each new value: a fix, or nil after a no-fix report.
    public init(batchSize: Int = 1, listener: @escaping @Sendable (Location?) -> Void) {
        precondition(batchSize >= 1 && batchSize <= ReplayPipeline.window / 4, "batch size out of range")
        self.batchSize = batchSize
        let inFlight = self.inFlight
        observation = deviceLocation.observe(on: DispatchQueue(label: "locationd.replay.output"), policy: .all) {
            change in
            listener(change.new)
            inFlight.release()
        }
    }

    /// Puts one provider event into the state: a fix, or nil for a no-fix report.
    ///
    /// - Important: blocks while ``window`` changes are still being delivered; call it
    ///   from the replay loop only (one thread at a time), never from the listener's queue.
    public func send(_ event: ProviderEvent) {
        switch event {
        case .fix(let location): enqueue(location)
        case .noFix: enqueue(nil)
        case .connected, .disconnected: return
        }
    }

    /// Waits until the listener has received every change sent, then stops listening.
    public func drain() {
        if batches.withLock({ $0.send() }) { putSentBatch() }
        inFlight.waitUntilIdle()
        observation.cancel()
    }

    private func enqueue(_ value: Location?) {
        inFlight.acquire()
        let batchSize = self.batchSize
        let full = batches.withLock { batches -> Bool in
            if batches.filling.capacity < batchSize { batches.filling.reserveCapacity(batchSize) }
            batches.filling.append(value)
            return batches.filling.count >= batchSize && batches.send()
        }
        if full { putSentBatch() }
    }

    /// Has the state queue put the oldest sent batch into the state, in order, and
    /// keep the emptied batch for reuse.
    private func putSentBatch() {
        stateQueue.async {
            // One job per sent batch, in order on a serial queue: the oldest is this job's.
            var values = self.batches.withLock { $0.sent.removeFirst() }
            for index in values.indices { self.deviceLocation ~> values[index] }
            values.removeAll(keepingCapacity: true)
            self.batches.withLock { $0.spare.append(values) }
        }
    }
}
