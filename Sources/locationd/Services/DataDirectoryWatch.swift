import Dispatch
import LocationState
import LocationStores
import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#endif

/// Stops the daemon at once when its data directory is removed or moved away under it, or
/// its lock file is removed.
///
/// The daemon's lock and its SQLite stores live in the directory: without them a second
/// daemon could start on the same path beside this one (the lock went with the
/// directory), the stores would write on into files nobody can reach, and a track or
/// last fix written by path would make a new directory that no lock guards. So the
/// daemon logs one line and exits with status 73 at once, writing nothing more (there is
/// nowhere left to keep it); a new start makes the directory again (systemd's
/// `Restart=on-failure` does so for the packaged service). PostgreSQL shuts down the same
/// way when its data directory's lock file goes.
///
/// An inotify watch on the directory, set up when the daemon has taken its lock: a
/// deletion in it (`rm -r` removes the lock file before the directory, and the event for
/// the directory itself did not come while the daemon held files in it open), the
/// directory moved or deleted, or its file system unmounted. Each is checked against the
/// directory and the lock file the daemon opened (device and inode), so that the daemon's
/// own deletions (SQLite's `-wal` at shutdown) change nothing. Nothing wakes an idle daemon.
struct DataDirectoryWatch: Service {
    private let directory: String
    /// The inotify descriptor, watching; nil when the kernel refused.
    private let descriptor: Int32?
    /// The device and inode of the directory and of the lock file, as the daemon took them.
    private let identity: [FileIdentity]
    private let logger: Logger

    /// Watches `directory`, whose lock the daemon holds; when the kernel refuses a watch (its
    /// limit reached), says so once and watches nothing.
    init(directory: String, logger: Logger) {
        (self.directory, self.logger) = (directory, logger)
        identity = Self.paths(of: directory).compactMap(FileIdentity.init)
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        let events = IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
        guard descriptor >= 0, inotify_add_watch(descriptor, directory, UInt32(events)) >= 0 else {
            let reason = SystemCall.message()
            logger.warning(
                "cannot watch the data directory \(directory) (\(reason)); its removal would go unnoticed until a restart"
            )
            if descriptor >= 0 { close(descriptor) }
            self.descriptor = nil
            return
        }
        self.descriptor = descriptor
    }

    func run() async throws {
        guard let descriptor else {
            try? await gracefulShutdown()
            return
        }
        let (removals, removed) = AsyncStream.makeStream(of: Void.self)
        let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: .global())
        source.setCancelHandler { close(descriptor) }
        source.setEventHandler { [directory, identity] in
            var events = [UInt8](repeating: 0, count: 4096)
            while events.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
            if Self.paths(of: directory).map(FileIdentity.init) != identity { removed.yield() }
        }
        source.activate()
        defer { source.cancel() }
        for await _ in removals.cancelOnGracefulShutdown() {
            logger.critical(
                "the data directory \(directory) was removed or moved away; stopping at once, writing nothing more (start again to make a new one)"
            )
            SystemdNotifier.notify("STOPPING=1")
            exit(ExitStatus.cannotCreate)
        }
    }

    /// The directory and the lock file in it.
    private static func paths(of directory: String) -> [String] {
        [directory, directory + "/" + DataDirectory.Name.daemonLock]
    }

    /// What a path is: its device and inode.
    private struct FileIdentity: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64

        /// The file at `path` (a link's target for the directory, which may be a link); nil when none is there.
        init?(_ path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            (device, inode) = (UInt64(info.st_dev), UInt64(info.st_ino))
        }
    }
}

extension DataDirectoryWatch {
    /// The watch on the context's data directory.
    init(context: DaemonContext) {
        self.init(directory: context.configuration.dataDirectory, logger: context.logger)
    }
}
