import Foundation

/// The file operations the stores need, injected so that tests can run in memory.
///
/// Use ``live`` for real files and ``inMemory(files:directories:)`` in tests, in
/// the manner of swift-sharing's `FileStorage`. Every closure throws a
/// ``LocationError`` that names the path and says what to do.
public struct FileSystem: Sendable {
    /// Creates the directory at the path, and missing parents, with mode 0700; does
    /// nothing if a directory is there already. Throws if something else is there
    /// or the directory cannot be read, searched and written.
    public var createDirectory: @Sendable (_ path: String) throws -> Void
    /// The contents of the regular file at the path, or `nil` if nothing is there.
    /// Throws if something is there that cannot be read as a regular file (a
    /// directory, a symbolic link, a file without read permission) or that is
    /// larger than ``maxFileBytes``, which is then not read at all.
    public var load: @Sendable (_ path: String) throws -> Data?
    /// Replaces the file at the path with `data`, atomically and durably: mode
    /// 0600, written to a temporary file in the same directory, synced, renamed
    /// over the path, and the directory synced. Readers see the old or the new
    /// contents, never a mix, even after a crash.
    public var save: @Sendable (_ data: Data, _ path: String) throws -> Void
    /// Renames the first path to the second, in the same file system; throws if
    /// the second exists.
    public var moveItem: @Sendable (_ source: String, _ destination: String) throws -> Void
    /// The names of the entries in the directory at the path (not `.` and `..`).
    public var contentsOfDirectory: @Sendable (_ path: String) throws -> [String]

    /// The largest file ``load`` reads: the stores keep small JSON files, and a
    /// larger one is not theirs (or is damaged), so it is refused rather than read whole.
    public static let maxFileBytes = 1 << 20

    public init(
        createDirectory: @escaping @Sendable (_ path: String) throws -> Void,
        load: @escaping @Sendable (_ path: String) throws -> Data?,
        save: @escaping @Sendable (_ data: Data, _ path: String) throws -> Void,
        moveItem: @escaping @Sendable (_ source: String, _ destination: String) throws -> Void,
        contentsOfDirectory: @escaping @Sendable (_ path: String) throws -> [String]
    ) {
        self.createDirectory = createDirectory
        self.load = load
        self.save = save
        self.moveItem = moveItem
        self.contentsOfDirectory = contentsOfDirectory
    }
}
