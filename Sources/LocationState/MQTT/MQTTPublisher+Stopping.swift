import CMosquitto
import Dispatch
import Foundation
import LocationState

/// Draining and stopping.
extension MQTTPublisher {
    /// Waits until the outbox is empty (every message acknowledged) or `grace` is over.
    package func drain(grace: Duration) async {
        await withCheckedContinuation { done in
            queue.async {
                self.drainOver = false
                done.resume()
            }
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await withCheckedContinuation { continuation in
                    self.queue.async {
                        if self.drainOver || (self.outbox.count == 0 && self.inFlight.isEmpty && self.direct.isEmpty) {
                            continuation.resume()
                        } else {
                            self.drained.append(continuation)
                            self.pump()
                            self.wakeLoop()  // out of a pause between PUBACKs
                        }
                    }
                }
            }
            group.addTask { try? await Task.sleep(for: grace) }
            await group.next()
            group.cancelAll()
            // Releases a waiter still pending, so that the task group can end.
            await withCheckedContinuation { done in
                queue.async {
                    self.drainOver = true
                    for waiter in self.drained { waiter.resume() }
                    self.drained.removeAll()
                    done.resume()
                }
            }
        }
    }

    /// Disconnects cleanly (the broker then does not send the last will) and ends the
    /// loop thread; what was not acknowledged stays in the outbox for the next start.
    package func stop() {
        stopping.withLock { $0 = true }
        guard let client else { return }
        _ = mosquitto_disconnect(client)
        wakeLoop()
        loopEnded.wait()
        queue.sync {
            connected = false
            storeDirectOrCountLost()  // kept for the next start
            updateSnapshot()
        }
        mosquitto_destroy(client)
        self.client = nil
        close(wakePipe.read)
        close(wakePipe.write)
        wakePipe = (-1, -1)
    }
}
