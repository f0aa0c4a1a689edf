import Foundation
import Synchronization

/// A TCP listener on a free loopback port that accepts every connection and closes it
/// at once: a "broker" that drops each client before a word. Each accepted connection's
/// time is posted to ``accepted``.
final class DroppingListener: @unchecked Sendable {
    // @unchecked Sendable: `let`s only; `accepted` locks.
    let port: Int
    let accepted = Mailbox<Date>()
    private let fd: Int32
    private let stopped = Atomic<Bool>(false)
    private let closed = DispatchSemaphore(value: 0)

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0 && listen(fd, 16) == 0
            }
        }
        guard listening else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
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
    func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        shutdown(fd, Int32(SHUT_RDWR))
        closed.wait()
    }

    deinit { stop() }
}
