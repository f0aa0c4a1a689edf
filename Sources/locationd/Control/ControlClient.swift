import LocationState

#if canImport(Glibc)
    import Glibc
#endif

/// A short-lived client of the control socket, as `locationd last` uses it.
///
/// Plain blocking POSIX calls with a timeout: one request, one line back, no event loop
/// to start, so that asking a running daemon costs a few milliseconds.
enum ControlClient {
    /// Sends `request` and returns the first line of the answer, without its newline.
    ///
    /// - Returns: `nil` when no daemon listens at `socketPath` (no socket file, or a stale one).
    /// - Throws: `LocationError` when the path is unusable or the daemon does not answer in time.
    static func ask(_ request: String, socketPath: String, timeoutSeconds: Int = 2) throws(LocationError) -> String? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard socketPath.utf8.count < capacity else {
            throw .usage("socket path \(socketPath) is longer than \(capacity - 1) bytes; choose a shorter --socket")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: socketPath.utf8)
            raw[socketPath.utf8.count] = 0
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .internalError("cannot create a socket: \(SystemCall.message())") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            switch errno {
            case ENOENT, ECONNREFUSED, ENOTDIR: return nil
            case EACCES, EPERM:
                throw .unavailable("\(socketPath): permission denied; run as the daemon's user")
            default:
                throw .unavailable("\(socketPath): cannot connect: \(SystemCall.message())")
            }
        }
        let message = Array((request + "\n").utf8)
        // A daemon without a free client slot answers with an error and closes at
        // once, maybe before the request arrives: its answer is read all the same.
        let sent = message.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == message.count
        var line: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                throw .unavailable("\(socketPath): the daemon did not answer within \(timeoutSeconds) s")
            }
            guard count > 0 else { break }
            if let newline = chunk[..<count].firstIndex(of: UInt8(ascii: "\n")) {
                line += chunk[..<newline]
                return String(decoding: line, as: UTF8.self)
            }
            line += chunk[..<count]
            guard line.count <= 1 << 20 else { break }
        }
        throw .unavailable(
            "\(socketPath): the daemon closed the connection\(sent ? " without an answer" : "")")
    }
}
