import LocationState

#if canImport(Glibc)
    import Glibc
#endif

/// A short-lived client of the control socket, as `locationd last` and `tiles` use it.
///
/// Plain blocking POSIX calls with a timeout: one request, its lines back, no event loop
/// to start, so that asking a running daemon costs a few milliseconds.
enum ControlClient {
    /// Seconds a command waits for each line of the daemon's answer: a live daemon answers
    /// in milliseconds, a busy one on a small, loaded machine within a few seconds; past
    /// this the command says the daemon did not answer (exit 69).
    static let defaultTimeout = 5

    /// Sends `request` and returns the first line of the answer, without its newline.
    ///
    /// - Returns: `nil` when no daemon listens at `socketPath` (no socket file, or a stale one).
    /// - Throws: `LocationError` when the path is unusable or the daemon does not answer in time.
    static func ask(_ request: String, socketPath: String, timeoutSeconds: Int = defaultTimeout) throws(LocationError)
        -> String?
    {
        var first: String?
        let answered = try converse(request, socketPath: socketPath, timeoutSeconds: timeoutSeconds) { line in
            first = line
            return false
        }
        return answered ? first : nil
    }

    /// Sends `request` and hands `line` each line of the answer, without its newline, until
    /// it returns false: the answer is complete.
    ///
    /// - Returns: false when no daemon listens at `socketPath` (no socket file, or a stale one).
    /// - Throws: `LocationError` when the path is unusable, the daemon does not answer in
    ///   time (`timeoutSeconds` between two reads), or closes before the answer is complete;
    ///   and what `line` throws.
    static func converse(
        _ request: String, socketPath: String, timeoutSeconds: Int = defaultTimeout,
        line handle: (String) throws(LocationError) -> Bool
    ) throws(LocationError) -> Bool {
        guard let fd = try connect(socketPath, timeoutSeconds: timeoutSeconds) else { return false }
        defer { close(fd) }
        let message = Array((request + "\n").utf8)
        // A daemon without a free client slot answers with an error and closes at
        // once, maybe before the request arrives: its answer is read all the same.
        let sent = message.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == message.count
        var pending: [UInt8] = []
        var lines = 0
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                throw .unavailable("\(socketPath): the daemon did not answer within \(timeoutSeconds) s")
            }
            guard count > 0 else { break }
            var start = 0
            while let newline = chunk[start..<count].firstIndex(of: UInt8(ascii: "\n")) {
                pending += chunk[start..<newline]
                start = newline + 1
                lines += 1
                let text = String(decoding: pending, as: UTF8.self)
                pending.removeAll(keepingCapacity: true)
                guard try handle(text) else { return true }
            }
            pending += chunk[start..<count]
            guard pending.count <= 1 << 20 else { break }
        }
        throw .unavailable(
            "\(socketPath): the daemon closed the connection"
                + (lines > 0 ? " before the answer was complete" : sent ? " without an answer" : ""))
    }

    /// A connected socket with `timeoutSeconds` for each send and receive; nil when no daemon listens.
    private static func connect(_ socketPath: String, timeoutSeconds: Int) throws(LocationError) -> Int32? {
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
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let failure = errno
            close(fd)
            var status = stat()
            if failure == ECONNREFUSED, stat(socketPath, &status) == 0, status.st_mode & S_IFMT != S_IFSOCK {
                throw .usage("\(socketPath) is not a socket: name a daemon's control socket")
            }
            switch failure {
            case ENOENT, ECONNREFUSED, ENOTDIR: return nil
            case EACCES, EPERM:
                throw .unavailable("\(socketPath): permission denied; run as the daemon's user")
            default:
                throw .unavailable("\(socketPath): cannot connect: \(SystemCall.message(failure))")
            }
        }
        return fd
    }
}
