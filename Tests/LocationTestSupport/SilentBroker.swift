import Foundation
import Synchronization

/// A "broker" on a free loopback port that accepts the MQTT connection (CONNACK, code 0)
/// and then reads every packet without ever answering: no PUBACK, and no PINGRESP unless
/// asked (`answersPings`: a broker that keeps the session but acknowledges nothing). It counts
/// the PUBLISH packets it got, so a test can tell a message reached the broker from one
/// that was stored.
package final class SilentBroker: @unchecked Sendable {
    // @unchecked Sendable: `let`s only; the counter is atomic.
    package let port: Int
    private let counter = Counter()
    private let fd: Int32

    private final class Counter: Sendable {
        let publishes = Atomic<Int>(0)
    }

    /// PUBLISH packets received, over all connections.
    package var publishes: Int { counter.publishes.load(ordering: .relaxed) }
    private let stopped = Atomic<Bool>(false)

    package init(answersPings: Bool = false) throws {
        let (fd, port) = try listenOnLoopback(backlog: 16)
        (self.fd, self.port) = (fd, port)
        let counter = counter
        acceptConnections(on: fd) { client in
            Thread.detachNewThread { Self.serve(client, counter: counter, answersPings: answersPings) }
        }
    }

    /// Reads packets (a fixed header: the type in the first byte's high nibble, then the
    /// remaining length as a base-128 number) until the client goes; answers CONNECT only.
    private static func serve(_ client: Int32, counter: Counter, answersPings: Bool) {
        defer { close(client) }
        readMessages(from: client) { pending in
            while let (_, length) = mqttFixedHeader(pending), pending.count >= length {
                let type = pending[0] >> 4
                pending.removeFirst(length)
                switch type {
                case 1:
                    let connack: [UInt8] = [0x20, 0x02, 0x00, 0x00]
                    guard write(client, connack, connack.count) == connack.count else { return false }
                case 3: counter.publishes.add(1, ordering: .relaxed)
                case 12 where answersPings:
                    let pingresp: [UInt8] = [0xD0, 0x00]
                    guard write(client, pingresp, pingresp.count) == pingresp.count else { return false }
                default: break
                }
            }
            return true
        }
    }

    /// Stops accepting (connections already open stay until their client goes).
    package func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    deinit { stop() }
}
