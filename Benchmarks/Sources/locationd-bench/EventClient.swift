import Foundation
import LocationState
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One `GET /api/v1/events` on a blocking socket, read on a thread of its own.
final class EventClient: Sendable {
    private let socket: Int32
    /// The `time` of each `fix` event, in the order received.
    private let times = Locked<[String]>([])
    private let finished = Atomic<Bool>(false)
    private let stopping = Atomic<Bool>(false)

    init(port: Int) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard connectLoopback(socket, port: port) else {
            let error = errno
            close(socket)
            throw BenchmarkError("cannot connect to the daemon's HTTP port: errno \(error)")
        }
        let request = Array("GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".utf8)
        guard write(socket, request, request.count) == request.count else {
            throw BenchmarkError("cannot send the request")
        }
    }

    var fixCount: Int { times.withLock { $0.count } }
    var fixTimes: [String] { times.withLock { $0 } }
    /// Whether the daemon ended the stream before ``stop()``.
    var ended: Bool { finished.load(ordering: .relaxed) && !stopping.load(ordering: .relaxed) }

    func start() {
        Thread.detachNewThread { [self] in run() }
    }

    func stop() {
        stopping.store(true, ordering: .relaxed)
        shutdown(socket, Int32(SHUT_RDWR))
    }

    private func run() {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        var isFix = false
        while true {
            let count = read(socket, &buffer, buffer.count)
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[0..<count])
            var start = 0
            while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[start..<newline]
                start = newline + 1
                if line.starts(with: Array("event: ".utf8)) {
                    isFix = line.elementsEqual(Array("event: fix".utf8))
                } else if isFix, line.starts(with: Array("data: ".utf8)) {
                    if let time = Self.time(in: String(decoding: line, as: UTF8.self)) {
                        times.withLock { $0.append(time) }
                    }
                    isFix = false
                }
            }
            pending.removeFirst(start)
        }
        finished.store(true, ordering: .relaxed)
        close(socket)
    }

    /// The value of `"time":"…"` in a TPV object.
    private static func time(in data: String) -> String? {
        guard let range = data.range(of: #""time":""#) else { return nil }
        let rest = data[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}
