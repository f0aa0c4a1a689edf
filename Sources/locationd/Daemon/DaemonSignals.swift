import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM, SIGINT and SIGHUP, taken over from the moment the daemon starts and
/// turned into an awaitable sequence.
///
/// Made before anything else in `locationd run`, so that a signal that comes while
/// the daemon is still starting is kept and acted on once it runs, instead of
/// killing it half-way. The three signals no longer have their default action
/// (terminate) from then on; a dispatch source reports each one.
final class DaemonSignals: Sendable {
    /// The signals received, in order; buffered until read.
    let received: AsyncStream<Int32>
    /// Made in `init` and otherwise only touched by `deinit`, when no other reference
    /// is left: never used from two threads.
    nonisolated(unsafe) private let sources: [any DispatchSourceSignal]

    init() {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let queue = DispatchQueue(label: "locationd.signals")
        sources = [SIGTERM, SIGINT, SIGHUP].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        received = stream
    }

    deinit {
        for source in sources { source.cancel() }
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
