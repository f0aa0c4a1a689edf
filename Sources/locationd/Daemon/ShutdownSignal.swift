import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// SIGTERM and SIGINT, turned from asynchronous interrupts into an awaitable event.
enum ShutdownSignal {
    /// Waits until the process receives SIGTERM or SIGINT and returns which one.
    ///
    /// - Important: From the call on, both signals no longer terminate the process
    ///   (their action becomes "ignore" and a dispatch source reports them), so the
    ///   daemon can stop in order. A second signal during shutdown is ignored.
    static func wait() async -> Int32 {
        let queue = DispatchQueue(label: "locationd.signals")
        let sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            return (number, DispatchSource.makeSignalSource(signal: number, queue: queue))
        }
        let received = await withCheckedContinuation { continuation in
            let once = Mutex<CheckedContinuation<Int32, Never>?>(continuation)
            for (number, source) in sources {
                source.setEventHandler {
                    once.withLock { pending in
                        pending?.resume(returning: number)
                        pending = nil
                    }
                }
                source.resume()
            }
        }
        for (_, source) in sources { source.cancel() }
        return received
    }
}
