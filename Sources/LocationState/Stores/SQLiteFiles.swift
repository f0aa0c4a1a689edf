import Foundation
import GRDB
import LocationState
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of a SQLite database in the data directory (the database, its `-wal` and
/// `-shm`): private whatever the umask, and never reached through a symbolic link.
///
/// SQLite creates `-wal` and `-shm` with the database file's mode, so a database file
/// created 0600 before SQLite opens it keeps all three private.
package enum SQLiteFiles {
    /// Throws when the database, its `-wal` or its `-shm` file is a symbolic link, or when
    /// something else than a regular file (a directory) is at the database's path, which
    /// SQLite would report as a mere "disk I/O error"; `reading` for a reader's error.
    package static func refuseUnusable(_ path: String, reading: Bool) throws(LocationError) {
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            if lstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFLNK { throw .symbolicLink(path: file) }
        }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG else { return }
        let what =
            switch info.st_mode & S_IFMT {
            case S_IFDIR: "a directory"
            case S_IFIFO: "a FIFO"
            case S_IFSOCK: "a socket"
            default: "a device"
            }
        throw .notAFile(path: path, is: what, reading: reading)
    }

    /// Creates the database file with mode 0600 when missing, never through a
    /// symbolic link, and takes group and other permissions away from it and its
    /// `-wal` and `-shm` files when they are ours (files made by an older version).
    package static func createPrivate(_ path: String) throws(LocationError) {
        try refuseUnusable(path, reading: false)
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard descriptor >= 0 else {
            if errno == ELOOP { throw .symbolicLink(path: path) }
            throw .cannotWrite(path: path, reason: SystemCall.message())
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw .databaseCorrupt(path: path, reason: "it is not a regular file")
        }
        if info.st_mode & 0o077 != 0, info.st_uid == geteuid() { fchmod(descriptor, 0o600) }
        for file in [path + "-wal", path + "-shm"] {
            var journal = stat()
            if lstat(file, &journal) == 0, journal.st_mode & S_IFMT == S_IFREG, journal.st_mode & 0o077 != 0,
                journal.st_uid == geteuid()
            {
                chmod(file, 0o600)
            }
        }
    }

    /// A private (0600) WAL database that only the daemon opens, through one queue:
    /// made 0600 before SQLite opens it (SQLite gives the -wal and -shm files the
    /// database's mode), `synchronous = NORMAL` (a power cut may lose the last
    /// transactions, a process kill none), and an exclusive lock taken once, which
    /// spares each transaction its file-lock calls (the data directory's lock keeps any
    /// other daemon out).
    package static func exclusiveQueue(_ path: String, label: String) throws(LocationError) -> DatabaseQueue {
        try createPrivate(path)
        var configuration = Configuration()
        configuration.journalMode = .wal
        configuration.busyMode = .timeout(1)
        configuration.label = label
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        do {
            return try DatabaseQueue(path: path, configuration: configuration)
        } catch {
            throw TileDatabase.locationError(error, path: path)
        }
    }

    /// Opens the database at `path` with `open`; one that is not a usable database is moved
    /// aside (``moveAside(_:at:)``) with one warning that names it as `what`, says what was
    /// wrong and where it went (then `advice`), and a new one is opened in its place.
    package static func openReplacingCorrupt<Database>(
        _ path: String, naming what: String, advice: String = "", at now: Date, logger: Logger,
        _ open: (String) throws(LocationError) -> Database
    ) throws(LocationError) -> Database {
        do {
            return try open(path)
        } catch let error {
            guard let corruption = error.corruption else { throw error }
            let aside = try moveAside(path, at: now)
            logger.warning("\(what) \(path) is not a usable database (\(corruption)); moved it to \(aside)\(advice)")
            return try open(path)
        }
    }

    /// Moves a database that SQLite cannot use to `PATH.corrupt-TIMESTAMP` and removes its
    /// `-wal` and `-shm`; returns where it went.
    package static func moveAside(_ path: String, at now: Date) throws(LocationError) -> String {
        let aside = path + ".corrupt-" + UTCCalendar.basicISO8601(now)
        do {
            try FileManager.default.moveItem(atPath: path, toPath: aside)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        } catch {
            throw .cannotWrite(path: path, reason: "it is corrupt and cannot be moved aside (\(error))")
        }
        return aside
    }
}
