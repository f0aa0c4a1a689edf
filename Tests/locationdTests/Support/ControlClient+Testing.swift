import LocationState

@testable import locationd

extension ControlClient {
    /// `ask` with a bound for a hang rather than the command line's 5 s, for a single
    /// question whose answer the test needs. A poll (`try? ask` in `waitUntil`) keeps the
    /// command line's bound: it asks again anyway, and its blocking call holds one of the
    /// two threads the suite's tasks share for no longer than that.
    static func askPatiently(_ request: String, socketPath: String) throws(LocationError) -> String? {
        try ask(request, socketPath: socketPath, timeoutSeconds: 30)
    }
}
