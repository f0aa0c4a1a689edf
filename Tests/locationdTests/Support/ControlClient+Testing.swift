import LocationState

@testable import locationd

extension ControlClient {
    /// `ask` with a bound for a hang rather than the command line's 2 s, which a busy
    /// daemon on a loaded two-core machine can exceed.
    static func askPatiently(_ request: String, socketPath: String) throws(LocationError) -> String? {
        try ask(request, socketPath: socketPath, timeoutSeconds: 30)
    }
}
