import Foundation
import Synchronization

/// A "broker" on a free loopback port that accepts the MQTT connection (CONNACK, code 0)
/// and closes it at once: a broker that takes every client and drops it. Each
/// connection's time is posted to ``accepted``.
package final class FlappingBroker: @unchecked Sendable {
    // @unchecked Sendable: `let`s only; `accepted` locks.
    package let port: Int
    package let accepted = Mailbox<Date>()
    private let fd: Int32
    private let stopped = Atomic<Bool>(false)

    package init() throws {
        let (fd, port) = try listenOnLoopback(backlog: 16)
        (self.fd, self.port) = (fd, port)
        let accepted = accepted
        acceptConnections(on: fd) { client in
            accepted.post(Date())
            // The CONNECT comes first; a CONNACK accepting it, then the end.
            var buffer = [UInt8](repeating: 0, count: 4096)
            if read(client, &buffer, buffer.count) > 0 {
                let connack: [UInt8] = [0x20, 0x02, 0x00, 0x00]
                _ = write(client, connack, connack.count)
            }
            close(client)
        }
    }

    /// Stops accepting.
    package func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    deinit { stop() }
}
