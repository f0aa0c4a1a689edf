import Dispatch
import LocationState

/// The path replayed fixes take: a `MonitoredState<Location?>`, as in the daemon, with
/// an `.all` listener that prints every fix.
///
/// Replay at `--speed max` produces fixes faster than any printer consumes them, and an
/// `.all` listener buffers what it has not yet received; so the pipeline lets at most
/// ``window`` changes be in flight: ``send(_:)`` blocks while the listener is that far
/// behind. Memory stays bounded whatever the file's size.
final class ReplayPipeline: Sendable {
    /// Changes allowed between `modify` and the end of their delivery.
    static let window = 8192

    /// The device's location: the current fix, or nil after a no-fix report.
    let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
    private let slots = DispatchSemaphore(value: ReplayPipeline.window)
    private let observation: StateObservation

    /// A pipeline whose listener prints through `output` on its own serial queue.
    init(output: ReplayOutput) {
        let slots = self.slots
        observation = deviceLocation.observe(on: DispatchQueue(label: "locationd.replay.output"), policy: .all) {
            change in
            if let fix = change.new { output.print(fix) }
            slots.signal()
        }
    }

    /// Puts one provider event into the state: a fix, or nil for a no-fix report.
    ///
    /// - Important: blocks while ``window`` changes are still being delivered; call it
    ///   from the replay loop only, never from the listener's queue.
    func send(_ event: ProviderEvent) {
        let value: Location?
        switch event {
        case .fix(let location): value = location
        case .noFix: value = nil
        case .connected, .disconnected: return
        }
        slots.wait()
        deviceLocation ~> value
    }

    /// Waits until the listener has received every change sent, then stops listening.
    func drain() {
        for _ in 0..<ReplayPipeline.window { slots.wait() }
        for _ in 0..<ReplayPipeline.window { slots.signal() }
        observation.cancel()
    }
}
