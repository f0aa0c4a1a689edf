import LocationState
import Logging

extension Daemon {
    /// Creates the data directory (0700) when missing, tightens one we own that is open
    /// to others, and checks that it can be written; warns when it stays open to others.
    static func prepare(directory: String, logger: Logger? = nil) throws(LocationError) {
        try DataDirectory.create(path: directory)
        if let warning = DataDirectory.privacyWarning(directory) { logger?.warning("\(warning)") }
    }
}
