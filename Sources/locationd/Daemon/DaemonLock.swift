import Foundation
import LocationState
import LocationStores
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// An exclusive lock on a data directory, held for as long as the daemon runs.
///
/// `flock(2)` on `DIR/locationd.lock`: the kernel drops it when the process ends,
/// however it ends, so a killed daemon never leaves a stale lock behind. The file
/// holds the owner's pid, for the message a second daemon prints.
///
/// Taking the lock also makes the directory private (``DataDirectory/create(path:)``:
/// 0700, or a warning when it is not ours), and refuses a lock file that is a
/// symbolic link or not a regular file: its target is never written.
final class DaemonLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock or throws `LocationError` naming the daemon that holds it.
    ///
    /// - Parameter logger: where a data directory open to other users is reported.
    init(directory: String, logger: Logger = Logger(label: "locationd")) throws(LocationError) {
        try DataDirectory.create(path: directory)
        if let warning = DataDirectory.privacyWarning(directory) { logger.warning("\(warning)") }
        let path = directory + "/" + DataDirectory.Name.daemonLock
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            if errno == ELOOP { throw .symbolicLink(path: path) }
            throw .cannotWrite(path: path, reason: SystemCall.message())
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(fd)
            throw .cannotWrite(path: path, reason: "it is not a regular file; remove it")
        }
        if info.st_mode & 0o077 != 0, info.st_uid == geteuid() { fchmod(fd, 0o600) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            var buffer = [UInt8](repeating: 0, count: 32)
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
            close(fd)
            let owner = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            throw .unavailable(
                "another locationd\(owner.isEmpty ? "" : " (pid \(owner))") is already running with data directory \(directory); stop it or choose another --data-dir"
            )
        }
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }
}
