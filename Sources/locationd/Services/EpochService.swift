import Dispatch
import LocationState
import ServiceLifecycle

/// Runs the daemon's ``Epochs``: hands it every report of `deviceLocation` while the
/// service runs, and on graceful shutdown (after the source has stopped) the epoch it
/// still holds, before the listeners are drained.
///
/// - Important: the merger runs on `queue`, the listeners' serial queue, and the epoch
///   fix is written from there.
public struct EpochService: Service {
    private let epochs: Epochs
    private let deviceLocation: MonitoredState<Location?>
    private let queue: DispatchQueue

    /// - Parameters:
    ///   - epochs: the merger and "epochLocation" it writes.
    ///   - deviceLocation: every report, as the source gives it.
    ///   - queue: the listeners' serial queue.
    public init(epochs: Epochs, deviceLocation: MonitoredState<Location?>, queue: DispatchQueue) {
        self.epochs = epochs
        self.deviceLocation = deviceLocation
        self.queue = queue
    }

    public func run() async throws {
        let observation = deviceLocation.observe(on: queue, policy: .all) { [epochs] change in
            epochs.receive(change.new)
        }
        try? await gracefulShutdown()
        observation.cancel()
        await withCheckedContinuation { done in
            queue.async { [epochs] in
                epochs.flush()
                done.resume()
            }
        }
    }
}

extension EpochService {
    /// The context's epochs, from its `deviceLocation` on the listeners' queue.
    init(context: DaemonContext) {
        self.init(epochs: context.epochs, deviceLocation: context.deviceLocation, queue: context.listeners)
    }
}
