import Foundation

/// A directory of small JSON files, one per key (`KEY.json`), each replaced atomically.
///
/// The directory is created with mode 0700 if missing; files are written with
/// mode 0600 through ``FileSystem/save``. Keys are checked so that nothing is
/// ever written outside the directory. Writes are synchronous: serialize them
/// (``PersistentState`` does) or throttle them in the caller.
public struct AtomicFileStore: Sendable {
    /// The directory holding the files.
    public let directory: String
    /// How the store reaches the files.
    public let fileSystem: FileSystem

    /// Opens the store in `directory`, creating the directory (mode 0700) if missing.
    ///
    /// - Throws: ``LocationError`` when the directory cannot be created or is not
    ///   a readable, writable directory.
    public init(directory: String, fileSystem: FileSystem = .live) throws {
        self.directory = directory
        self.fileSystem = fileSystem
        try fileSystem.createDirectory(directory)
    }

    /// Checks that `key` names a file inside the directory: not empty, at most 200
    /// bytes, without `/`, `..` or NUL.
    ///
    /// - Throws: ``LocationError`` (usage) saying what is wrong with the key.
    public static func validate(key: String) throws {
        let problem: String? =
            if key.isEmpty { "it is empty" } else if key.contains("/") { "it contains '/'" } else if key.contains("..")
            { "it contains '..'" } else if key.utf8.contains(0) {
                "it contains a NUL byte"
            } else if key.utf8.count > 200 { "it is longer than 200 bytes" } else { nil }
        if let problem {
            throw LocationError.usage(
                "\(key.debugDescription) cannot name a stored state: \(problem); use a plain file name.")
        }
    }

    /// The path of the file holding `key`.
    public func path(forKey key: String) throws -> String {
        try Self.validate(key: key)
        return "\(directory)/" + DataDirectory.Name.storeFile(forKey: key)
    }

    /// The stored bytes for `key`, or `nil` if nothing is stored.
    ///
    /// - Throws: ``LocationError`` for a bad key, or when something is stored that
    ///   cannot be read (see ``FileSystem/load``).
    public func read(key: String) throws -> Data? {
        try fileSystem.load(path(forKey: key))
    }

    /// Stores `data` for `key`, replacing the previous bytes atomically.
    public func write(_ data: Data, key: String) throws {
        try fileSystem.save(data, path(forKey: key))
    }

    /// Moves the file for `key` aside, to `KEY.corrupt-TIMESTAMP` (UTC, to the
    /// millisecond, with `-2`, `-3`, ... if that exists), and returns the new path.
    public func moveAside(key: String, at date: Date = Date()) throws -> String {
        let source = try path(forKey: key)
        let base = "\(directory)/\(key).corrupt-\(UTCCalendar.basicISO8601(date))"
        let existing = Set(try fileSystem.contentsOfDirectory(directory))
        var destination = base
        var attempt = 1
        while existing.contains((destination as NSString).lastPathComponent) {
            attempt += 1
            destination = "\(base)-\(attempt)"
        }
        try fileSystem.moveItem(source, destination)
        return destination
    }
}
