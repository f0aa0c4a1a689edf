import Foundation
import Synchronization

/// A TCP listener on a free loopback port that accepts every connection and closes it
/// at once: a "broker" that drops each client before a word. Each accepted connection's
/// time is posted to ``accepted``.
package final class DroppingListener: @unchecked Sendable {
    // @unchecked Sendable: `let`s only; `accepted` locks.
    package let port: Int
    package let accepted = Mailbox<Date>()
    private let fd: Int32
    private let stopped = Atomic<Bool>(false)
    private let closed = DispatchSemaphore(value: 0)

    package init() throws {
        let (fd, port) = try listenOnLoopback(backlog: 16)
        (self.fd, self.port) = (fd, port)
        let (accepted, closed) = (accepted, closed)
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    // `stop` shut the socket down: it is closed here, where no accept can follow.
                    close(fd)
                    closed.signal()
                    return
                }
                close(client)
                accepted.post(Date())
            }
        }
    }

    /// Stops listening (the port is free for a real broker then).
    package func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        closed.wait()
    }

    deinit { stop() }
}
