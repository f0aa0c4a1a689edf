import Foundation
import LocationState

extension ControlResponder {
    /// The daemon's answers: from its current fix, its status, the fixes counted and
    /// the last fix store (for `?LAST;` when nothing is current).
    static func daemon(
        deviceLocation: MonitoredState<Location?>, status: MonitoredState<ProviderStatus>, counter: FixCounter,
        lastFix: LastFixStore, startedAt: Date, mqtt: MQTTPublisher? = nil
    ) -> ControlResponder {
        ControlResponder(
            last: {
                ControlAnswers.last(
                    current: deviceLocation.value, lastKnown: counter.lastKnown ?? lastFix.lastFix, now: Date())
            },
            status: {
                ControlAnswers.status(
                    status.value, fixes: counter.fixes, uptimeSeconds: Date().timeIntervalSince(startedAt),
                    mqtt: mqtt?.snapshot)
            },
            watch: { send in
                // The current fix first, as a new watcher wants to know where the
                // device is now; before any fix there is nothing to say yet.
                let observation = deviceLocation.observe(policy: .all, sendingCurrentValue: true) { change in
                    if change.old == nil, change.new == nil { return }
                    send(ControlAnswers.watchLine(change.new))
                }
                return { observation.cancel() }
            })
    }
}
