import Foundation

/// A TCP listener on a free loopback port that answers each connection with
/// fixed bytes, then closes it or holds it open: a misbehaving "gpsd".
final class FakeGPSDServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` and `port` are set once in init; `open`
    // (the accepted sockets still held) is only touched while holding `lock`.

    /// What to do after the reply has been written.
    enum Then { case close, holdOpen }

    let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var open: [Int32] = []
    private var stopped = false

    /// Listens on 127.0.0.1; answers every connection with `reply`, then `then`.
    init(reply: Data, then: Then) throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = listener
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 8) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard ok else { throw POSIXError(.EADDRINUSE) }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in self.serve(reply: reply, then: then) }
        thread.start()
    }

    /// Stops accepting and closes every held connection.
    func stop() {
        let sockets: [Int32] = lock.withLock {
            stopped = true
            defer { open = [] }
            return open
        }
        for socket in sockets { close(socket) }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func serve(reply: Data, then: Then) {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            let keep: Bool = lock.withLock {
                guard !stopped, then == .holdOpen else { return false }
                open.append(client)
                return true
            }
            if !keep { close(client) }
        }
    }
}
