import LocationFormats

/// One open connection to gpsd, watching in JSON mode.
///
/// - Important: a session is used by one thread only (the provider's reader
///   thread) and is not `Sendable`.
package protocol GPSDSession: AnyObject {
    /// Waits up to `timeout` for input; true when ``read()`` has something to read
    /// (a report, or the end of the connection).
    func waitForInput(timeout: Duration) -> Bool
    /// Reads the next report; nil when only part of a line has arrived yet.
    /// Throws when the connection is closed or broken.
    func read() throws(GPSDConnectionError) -> GPSDMessage?
    /// Waits up to about `timeout` for the next report and reads it; nil when none
    /// came whole in that time. Throws as ``read()``.
    func next(timeout: Duration) throws(GPSDConnectionError) -> GPSDMessage?
    /// Closes the connection; the session is not used afterwards.
    func close()
}

extension GPSDSession {
    package func next(timeout: Duration) throws(GPSDConnectionError) -> GPSDMessage? {
        guard waitForInput(timeout: timeout) else { return nil }
        return try read()
    }
}

/// Why a gpsd connection could not be opened or ended; `reason` is one sentence for the log.
package struct GPSDConnectionError: Error, Sendable, Hashable {
    package var reason: String

    package init(reason: String) { self.reason = reason }
}

/// Opens gpsd sessions: libgps in the daemon, scripted sessions in unit tests.
package struct GPSDConnector: Sendable {
    /// Connects to gpsd at `host`:`port` and asks it to stream JSON reports.
    /// Blocks while the host name is resolved and the TCP connection is made.
    package var connect: @Sendable (_ host: String, _ port: Int) throws(GPSDConnectionError) -> any GPSDSession

    package init(
        connect: @escaping @Sendable (_ host: String, _ port: Int) throws(GPSDConnectionError) -> any GPSDSession
    ) {
        self.connect = connect
    }
}
