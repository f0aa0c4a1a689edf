import Foundation
import Synchronization

/// A "broker" on a free loopback port that accepts the MQTT connection, acknowledges
/// every PUBLISH (QoS 1) except one whose topic ends with `refusedSuffix`, at which it
/// closes the connection: MQTT 3.1.1's only way to refuse a message. It counts the
/// PUBLISH packets it acknowledged and the connections it ended.
///
/// It answers what one read brought once that read is handled, as a broker that flushes
/// its output per read does, so that the acknowledgements of the messages that came in
/// the same read as a refused one never leave: what a real broker's reset loses when it
/// closes with bytes unread (the client's receive queue is discarded with the reset),
/// made certain instead of a matter of timing.
package final class RefusingBroker: @unchecked Sendable {
    // @unchecked Sendable: `let`s only; the counter is atomic.
    package let port: Int
    private let fd: Int32
    private let counter = Counter()
    private let stopped = Atomic<Bool>(false)

    private final class Counter: Sendable {
        let acknowledged = Atomic<Int>(0)
        let refusals = Atomic<Int>(0)
    }

    /// PUBLISH packets acknowledged, over all connections.
    package var acknowledged: Int { counter.acknowledged.load(ordering: .relaxed) }
    /// Connections ended for a refused topic.
    package var refusals: Int { counter.refusals.load(ordering: .relaxed) }

    package init(refusedSuffix: String) throws {
        let (fd, port) = try listenOnLoopback(backlog: 16)
        (self.fd, self.port) = (fd, port)
        let counter = counter
        let suffix = Array(refusedSuffix.utf8)
        acceptConnections(on: fd) { client in
            Thread.detachNewThread { Self.serve(client, refusing: suffix, counter: counter) }
        }
    }

    /// Answers CONNECT and PUBLISH packets until the client goes or a refused topic comes.
    private static func serve(_ client: Int32, refusing suffix: [UInt8], counter: Counter) {
        defer { close(client) }
        readMessages(from: client) { pending in
            var answers: [UInt8] = []
            var acknowledged = 0
            while let (headerLength, length) = mqttFixedHeader(pending), pending.count >= length {
                let packet = Array(pending.prefix(length))
                pending.removeFirst(length)
                switch packet[0] >> 4 {
                case 1: answers += [0x20, 0x02, 0x00, 0x00]
                case 3:
                    let topicLength = Int(packet[headerLength]) << 8 | Int(packet[headerLength + 1])
                    let topic = packet[(headerLength + 2)..<(headerLength + 2 + topicLength)]
                    if topic.reversed().starts(with: suffix.reversed()) {
                        counter.refusals.add(1, ordering: .relaxed)
                        return false
                    }
                    let id = headerLength + 2 + topicLength
                    if packet[0] & 0x06 != 0 {
                        answers += [0x40, 0x02, packet[id], packet[id + 1]]
                        acknowledged += 1
                    }
                case 12: answers += [0xD0, 0x00]
                default: break
                }
            }
            counter.acknowledged.add(acknowledged, ordering: .relaxed)
            return answers.isEmpty || write(client, answers, answers.count) == answers.count
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
