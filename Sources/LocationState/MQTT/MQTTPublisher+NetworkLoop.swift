import CMosquitto
import Foundation
import LocationState
import LocationStores

/// The network loop, on a thread of its own: libmosquitto's steps around a `poll` of
/// the broker's socket and a wake-up pipe.
extension MQTTPublisher {
    /// The loop thread: connects, runs libmosquitto's loop, and after an error
    /// waits (1 s doubling to 30 s) and connects again, until `stop`. The delay starts
    /// over only after a connection that proved itself (``proven``).
    package func runLoop() {
        guard let client else { return }
        loopThread.withLock { $0 = pthread_self() }
        var backoff = Backoff(initial: .seconds(1), maximum: .seconds(30))
        var first = true
        while !stopping.withLock({ $0 }) {
            wasConnected.withLock { $0 = false }
            proven.withLock { $0 = false }
            var connectedAt: ContinuousClock.Instant?
            var rc = first || resetClient(client) ? connect(client) : MOSQ_ERR_NO_CONN.rawValue
            first = false
            var errorNumber = errno
            while rc == MOSQ_ERR_SUCCESS.rawValue, !stopping.withLock({ $0 }) {
                rc = loopOnce(client)
                errorNumber = errno
                if connectedAt == nil, wasConnected.withLock({ $0 }) { connectedAt = .now }
            }
            if stopping.withLock({ $0 }) { break }
            let lived = connectedAt.map { ContinuousClock.now - $0 } ?? .zero
            if proven.withLock({ $0 }) || lived >= Self.stableConnection { backoff.reset() }
            let reason = rc == MOSQ_ERR_ERRNO.rawValue ? SystemCall.message(errorNumber) : Self.describe(rc)
            queue.async { self.connectionFailed(reason) }
            waitForWake(milliseconds: Int32(backoff.next() / .milliseconds(1)))
        }
        // A DISCONNECT that `stop` could only queue (the loop was in a callback) goes now.
        if mosquitto_want_write(client) { _ = mosquitto_loop_write(client, 1) }
        loopEnded.signal()
    }

    /// Starts connecting to the broker.
    private func connect(_ client: OpaquePointer) -> Int32 {
        mosquitto_connect_async(
            client, configuration.host ?? "localhost", Int32(configuration.port), Int32(configuration.keepAliveSeconds))
    }

    /// Makes libmosquitto's state new before a reconnection: libmosquitto would send again
    /// every message it still holds unacknowledged, beside the outbox, which sends them
    /// itself; a message the publisher dropped (`suspectLoss`) would go out regardless,
    /// and a broker that refuses it would hang up for ever. On ``queue``, where every
    /// publish happens, and under `stopping`, so that `stop` never meets a client being
    /// reset. False when stopping or when the client could not be set up again.
    private func resetClient(_ client: OpaquePointer) -> Bool {
        stopping.withLock { (stopping: inout Bool) -> Bool in
            guard !stopping else { return false }
            return queue.sync { () -> Bool in
                let context = Unmanaged.passUnretained(self).toOpaque()
                guard
                    mosquitto_reinitialise(client, configuration.resolvedClientID, true, context)
                        == MOSQ_ERR_SUCCESS.rawValue
                else {
                    logger.error("MQTT: libmosquitto could not reset its client (out of memory?); retrying")
                    return false
                }
                do throws(LocationError) {
                    try configure(client)
                    return true
                } catch {
                    logger.error("MQTT: \(error.message); retrying")
                    return false
                }
            }
        }
    }

    /// One turn of the network loop, as `mosquitto_loop` takes it but waiting on the
    /// wake-up pipe instead of libmosquitto's per-publish byte: waits up to a second
    /// for the broker (or a wake-up), reads what came (PUBACKs run their callback
    /// here), writes what is queued, and runs keepalive. Returns libmosquitto's code.
    private func loopOnce(_ client: OpaquePointer) -> Int32 {
        let socket = mosquitto_socket(client)
        guard socket >= 0 else { return MOSQ_ERR_NO_CONN.rawValue }
        let wantWrite = mosquitto_want_write(client)
        var descriptors = [
            pollfd(fd: socket, events: Int16(POLLIN) | (wantWrite ? Int16(POLLOUT) : 0), revents: 0),
            pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0),
        ]
        if poll(&descriptors, 2, 1000) < 0 {
            return errno == EINTR ? MOSQ_ERR_SUCCESS.rawValue : MOSQ_ERR_ERRNO.rawValue
        }
        if descriptors[1].revents != 0 { drainWakePipe() }
        if descriptors[0].revents & Int16(POLLIN | POLLERR | POLLHUP | POLLNVAL) != 0 {
            let rc = mosquitto_loop_read(client, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue || mosquitto_socket(client) < 0 { return rc }
            if steady.withLock({ $0 }) && !mosquitto_want_write(client) {
                waitForWake(milliseconds: Self.acknowledgementPause)
            }
        }
        // Queued packets (a publish made inside a callback just now, one that found the
        // socket full, our own DISCONNECT): written as far as the socket takes them.
        if mosquitto_want_write(client) {
            let rc = mosquitto_loop_write(client, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue || mosquitto_socket(client) < 0 { return rc }
        }
        return mosquitto_loop_misc(client)
    }

    /// Whether the caller runs on the loop thread (in one of libmosquitto's callbacks).
    private var onLoopThread: Bool {
        loopThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// A publish is written at once as a rule; what libmosquitto could only queue, the
    /// loop writes: woken for it, unless this is the loop thread itself (in a callback),
    /// which looks after every read anyway.
    package func wakeLoopIfQueued(_ client: OpaquePointer) {
        if !onLoopThread, mosquitto_want_write(client) { wakeLoop() }
    }

    /// Wakes the loop thread out of its `poll` (or its backoff); any thread.
    package func wakeLoop() {
        var byte: UInt8 = 1
        _ = write(wakePipe.write, &byte, 1)  // a full pipe already wakes it
    }

    private func drainWakePipe() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakePipe.read, &bytes, bytes.count) > 0 {}
    }

    /// The backoff: sleeps `milliseconds` unless woken (by `stop`).
    private func waitForWake(milliseconds: Int32) {
        var descriptor = pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, milliseconds) > 0 { drainWakePipe() }
    }

    package static func describe(_ rc: Int32) -> String { String(cString: mosquitto_strerror(rc)) }
}
