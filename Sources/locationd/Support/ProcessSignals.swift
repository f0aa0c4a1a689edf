import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM, SIGINT and SIGHUP, taken over from the moment the daemon (or a replay) starts and
/// turned into an awaitable sequence.
///
/// Made before anything else in `locationd run`, so that a signal that comes while
/// the daemon is still starting is kept and acted on once it runs, instead of
/// killing it half-way or being lost. A `sigaction` handler is in place when
/// `init` returns: it writes the signal's number into a pipe (the self-pipe trick;
/// `write(2)` is async-signal-safe), and a dispatch read source turns the pipe's
/// bytes into ``received``. A signal source of Dispatch alone could lose a signal
/// that came between taking away the default action and the source's registration,
/// which happens later, on Dispatch's own thread: the daemon then never stopped.
final class ProcessSignals: Sendable {
    /// The signals received, in order; buffered until read.
    let received: AsyncStream<Int32>
    /// Reads the pipe; made in `init` and otherwise only touched by `deinit`, when no
    /// other reference is left: never used from two threads.
    nonisolated(unsafe) private let reader: any DispatchSourceRead

    /// The signals taken over.
    static let numbers = [SIGTERM, SIGINT, SIGHUP]

    init() {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        received = stream
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "no pipe for signals")
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        signalPipe = ends[1]
        let readEnd = ends[0]
        reader = DispatchSource.makeReadSource(
            fileDescriptor: readEnd, queue: DispatchQueue(label: "locationd.signals"))
        reader.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 64)
            while true {
                let count = bytes.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                guard count > 0 else { return }
                for byte in bytes[..<count] { continuation.yield(Int32(byte)) }
            }
        }
        reader.resume()
        for number in Self.numbers {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                var byte = UInt8(truncatingIfNeeded: number)
                let saved = errno
                _ = write(signalPipe, &byte, 1)
                errno = saved
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
    }

    deinit {
        reader.cancel()
    }

    /// The signal's name, for log lines.
    static func name(_ number: Int32) -> String {
        switch number {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(number)"
        }
    }
}

/// The pipe's write end, for the signal handler, which can capture nothing.
///
/// Written once, in `ProcessSignals.init`, before the handlers that read it are
/// installed (`sigaction` orders the two); one daemon per process makes one.
nonisolated(unsafe) private var signalPipe: Int32 = -1
