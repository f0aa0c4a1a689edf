import Dispatch
import Foundation
import LocationState
import LocationTimeline
import ServiceLifecycle

extension ListenerService {
    /// The timeline recorder attached to `deviceLocation` on `queue` while the service runs,
    /// told once a minute to end what a long silence ends, and its state saved at shutdown.
    public static func timeline(
        _ recorder: TimelineRecorder, of deviceLocation: MonitoredState<Location?>, on queue: DispatchQueue
    ) -> ListenerService {
        ListenerService(
            queue: queue,
            attach: {
                deviceLocation.addListener(recorder, on: queue)
                let clock = Task {
                    while (try? await Task.sleep(for: .seconds(60))) != nil {
                        queue.async { recorder.expire() }
                    }
                }
                return {
                    clock.cancel()
                    deviceLocation.removeListener(recorder)
                }
            }, close: { try recorder.close() })
    }
}
