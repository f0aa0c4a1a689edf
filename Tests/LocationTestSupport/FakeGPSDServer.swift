import Foundation
import LocationState

/// A TCP listener on a free loopback port that answers each connection with
/// fixed bytes, then closes it or holds it open: a misbehaving "gpsd".
package final class FakeGPSDServer: Sendable {

    /// What to do after the reply has been written.
    package enum Then {
        /// Closes the connection as gpsd does: the reply, then end of stream. What the
        /// client sent is read first, so the close is a FIN that comes after the reply;
        /// closing with the client's `?WATCH` unread would send an RST, which can
        /// discard the reply before the client reads it.
        case close
        /// Keeps the connection open and silent until `stop()`.
        case holdOpen
    }

    package let port: Int
    private let listener: Int32
    /// The accepted sockets still held, and whether `stop()` was called.
    private let state = Locked((open: [Int32](), stopped: false))
    /// Signalled by the accepting thread when it has closed the listener and ended.
    private let ended = DispatchSemaphore(value: 0)

    /// Listens on 127.0.0.1; answers every connection with `reply`, then `then`.
    package init(reply: Data, then: Then) throws {
        (listener, port) = try listenOnLoopback(backlog: 8)
        let thread = Thread { [self] in self.serve(reply: reply, then: then) }
        thread.start()
    }

    /// Stops accepting, closes every held connection, and returns once the accepting
    /// thread has ended.
    ///
    /// The listener is closed by the accepting thread itself, after its last `accept`:
    /// closed here, its descriptor number could be reused at once by a socket of a test
    /// running in parallel, and this server's thread would accept that test's connections.
    package func stop() {
        let sockets: [Int32]? = state.withLock { state in
            guard !state.stopped else { return nil }
            state.stopped = true
            defer { state.open = [] }
            return state.open
        }
        guard let sockets else { return }
        for socket in sockets { close(socket) }
        // Wakes the thread from `accept` with an error.
        shutdown(listener, Int32(SHUT_RDWR))
        ended.wait()
    }

    private func serve(reply: Data, then: Then) {
        defer {
            close(listener)
            ended.signal()
        }
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            let keep: Bool = state.withLock { state in
                guard !state.stopped, then == .holdOpen else { return false }
                state.open.append(client)
                return true
            }
            if !keep { Self.closeAfterDraining(client) }
        }
    }

    /// Sends end of stream, reads what the client still sends (its `?WATCH`) until it
    /// closes too or 5 s pass, then closes: see `Then.close`.
    private static func closeAfterDraining(_ client: Int32) {
        shutdown(client, Int32(SHUT_WR))
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let thread = Thread {
            var scratch = [UInt8](repeating: 0, count: 4096)
            while scratch.withUnsafeMutableBytes({ recv(client, $0.baseAddress, $0.count, 0) }) > 0 {}
            close(client)
        }
        thread.start()
    }
}
