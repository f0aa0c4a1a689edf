import Foundation
import LocationState

#if canImport(Glibc)
    import Glibc
#endif

extension Daemon {
    /// Creates the data directory (0700) when missing and checks that it can be written.
    static func prepare(directory: String) throws(LocationError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .cannotWrite(path: directory, reason: "it is not a directory") }
        } else {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .cannotWrite(path: directory, reason: "cannot create the data directory")
            }
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw .cannotWrite(path: directory, reason: "the data directory is not writable")
        }
    }
}
