import Dispatch
import LocationState
import ServiceLifecycle

/// A listener that owns a resource (the tile log, the last fix file, a track file)
/// as a service: attached while the service runs; on graceful shutdown drained,
/// detached and flushed.
///
/// Shutdown order matters: the group stops the source before its listeners (it
/// shuts services down in the reverse order of their list), so when this service
/// is told to stop no new change comes. It then waits until every change already
/// handed to `queue` is delivered, detaches, and calls `close`, whose error it
/// throws: a store that could not be flushed must not let the daemon exit 0.
///
/// - Important: the listener must deliver on `queue` (a serial queue), so that
///   draining the queue drains the listener.
public struct ListenerService: Service {
    /// Attaches the listener and returns what detaches it.
    public typealias Attach = @Sendable () -> @Sendable () -> Void

    private let queue: DispatchQueue
    private let attach: Attach
    private let close: @Sendable () async throws -> Void

    /// - Parameters:
    ///   - queue: the serial queue the listener is attached on.
    ///   - attach: attaches the listener to its state(s) on `queue`; returns the detach.
    ///   - close: flushes and closes the resource; its error ends the daemon with a failure.
    public init(
        queue: DispatchQueue, attach: @escaping Attach,
        close: @escaping @Sendable () async throws -> Void
    ) {
        self.queue = queue
        self.attach = attach
        self.close = close
    }

    public func run() async throws {
        let detach = attach()
        // Cancellation (a group that is cancelled, not shut down) still flushes below.
        try? await gracefulShutdown()
        await withCheckedContinuation { done in queue.async { done.resume() } }
        detach()
        try await close()
    }
}

extension ListenerService {
    /// `listener` attached to `state` on `queue` while the service runs, then `close`d.
    public init<Listener: StateListener>(
        _ listener: Listener, of state: MonitoredState<Listener.Value>, on queue: DispatchQueue,
        close: @escaping @Sendable () async throws -> Void
    ) {
        self.init(
            queue: queue,
            attach: {
                state.addListener(listener, on: queue)
                return { state.removeListener(listener) }
            }, close: close)
    }
}

extension ListenerService {
    /// The history listeners (``DaemonContext/historyListeners()``), in their order, each
    /// attached to the state it follows on the listeners' queue and closed (its store
    /// flushed) when the group stops it.
    static func history(context: DaemonContext) -> [ListenerService] {
        context.historyListeners().map { ListenerService($0, context: context) }
    }

    /// `history` attached to the state it follows, on the context's listeners' queue.
    private init(_ history: HistoryListener, context: DaemonContext) {
        let state = history.follows == .epochs ? context.epochLocation : context.deviceLocation
        let (listener, queue, whileAttached) = (history.listener, context.listeners, history.whileAttached)
        self.init(
            queue: queue,
            attach: {
                state.addListener(listener, on: queue)
                let stop = whileAttached?()
                return {
                    stop?()
                    state.removeListener(listener)
                }
            }, close: history.close)
    }

    /// The fixes counted for the status (`?STATUS`'s `fixes`): every report, as it comes.
    static func fixCounter(context: DaemonContext) -> ListenerService {
        let (counter, deviceLocation, queue) = (context.counter, context.deviceLocation, context.listeners)
        return ListenerService(
            queue: queue,
            attach: {
                let observation = deviceLocation.observe(on: queue, policy: .all) { change in
                    if let fix = change.new { counter.count(fix) }
                }
                return { observation.cancel() }
            }, close: {})
    }
}
