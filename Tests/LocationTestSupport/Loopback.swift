import Foundation

/// The address 127.0.0.1:`port`; port 0 lets `bind` choose a free one.
package func loopbackAddress(port: Int = 0) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    return address
}

/// A TCP socket listening on 127.0.0.1 at a port the kernel chose, and that port: the
/// listener of every fake server in the tests.
package func listenOnLoopback(backlog: Int32, port wanted: Int = 0) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EMFILE) }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = loopbackAddress(port: wanted)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let listening = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0 && listen(fd, backlog) == 0
        }
    }
    guard listening else {
        close(fd)
        throw POSIXError(.EADDRINUSE)
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
}

/// Accepts connections on the listening socket `fd` on a thread of its own, handing each to
/// `handle` there, until the socket is shut down.
package func acceptConnections(on fd: Int32, _ handle: @escaping @Sendable (_ client: Int32) -> Void) {
    Thread.detachNewThread {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            handle(client)
        }
    }
}

/// Reads `client` until the peer goes (or `consume` returns false), appending what
/// arrives to a buffer that `consume` takes whole messages from: the read loop of every
/// fake server that answers a stream of requests.
package func readMessages(from client: Int32, _ consume: (inout [UInt8]) -> Bool) {
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = read(client, &buffer, buffer.count)
        guard count > 0 else { return }
        pending.append(contentsOf: buffer[0..<count])
        guard consume(&pending) else { return }
    }
}

/// An MQTT packet's fixed header: its length and the whole packet's, once the header
/// (type byte and variable-length "remaining length") is complete in `bytes`.
package func mqttFixedHeader(_ bytes: [UInt8]) -> (headerLength: Int, length: Int)? {
    var (remaining, multiplier, index) = (0, 1, 1)
    while index < bytes.count, index <= 4 {
        remaining += Int(bytes[index] & 0x7F) * multiplier
        if bytes[index] & 0x80 == 0 { return (index + 1, index + 1 + remaining) }
        multiplier *= 128
        index += 1
    }
    return nil
}
