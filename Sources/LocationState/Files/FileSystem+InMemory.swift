import Foundation

extension FileSystem {
    /// A file system that lives in memory, for tests: fast, deterministic, and
    /// shared by every copy of the returned value.
    ///
    /// Paths are compared as strings; permissions are not modelled. `files` and
    /// `directories` seed it (the parents of seeded files exist implicitly).
    public static func inMemory(files: [String: Data] = [:], directories: Set<String> = []) -> FileSystem {
        let tree = Locked(InMemoryTree(files: files, directories: directories))
        return FileSystem(
            createDirectory: { path in try tree.withLock { try $0.createDirectory(path) } },
            load: { path in try tree.withLock { try $0.load(path) } },
            save: { data, path in try tree.withLock { try $0.save(data, to: path) } },
            moveItem: { source, destination in try tree.withLock { try $0.move(source, to: destination) } },
            contentsOfDirectory: { path in try tree.withLock { try $0.contents(of: path) } }
        )
    }
}

/// The state behind ``FileSystem/inMemory(files:directories:)``.
private struct InMemoryTree: Sendable {
    package var files: [String: Data]
    package var directories: Set<String>

    package init(files: [String: Data], directories: Set<String>) {
        self.files = files
        self.directories = directories.union(["/"])
        for path in Array(files.keys) + directories {
            var parent = Self.parent(of: path)
            while !parent.isEmpty, parent != "/" {
                self.directories.insert(parent)
                parent = Self.parent(of: parent)
            }
        }
    }

    package static func parent(of path: String) -> String {
        (path as NSString).deletingLastPathComponent
    }

    package mutating func createDirectory(_ path: String) throws {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty && !path.hasPrefix("/") ? "" : "/") + component
            if files[prefix] != nil {
                throw LocationError.cannotWrite(path: prefix, reason: "it exists and is not a directory")
            }
            directories.insert(prefix)
        }
    }

    package func load(_ path: String) throws -> Data? {
        if directories.contains(path) {
            throw LocationError.fileUnreadable(path: path, reason: "it is not a regular file")
        }
        if let data = files[path], data.count > FileSystem.maxFileBytes {
            throw LocationError.fileUnreadable(
                path: path, reason: "it is larger than \(FileSystem.maxFileBytes) bytes, too large for a stored state")
        }
        return files[path]
    }

    package mutating func save(_ data: Data, to path: String) throws {
        guard directories.contains(Self.parent(of: path)) else {
            throw LocationError.cannotWrite(path: path, reason: "No such file or directory")
        }
        if directories.contains(path) {
            throw LocationError.cannotWrite(path: path, reason: "Is a directory")
        }
        files[path] = data
    }

    package mutating func move(_ source: String, to destination: String) throws {
        guard files[destination] == nil, !directories.contains(destination) else {
            throw LocationError.cannotWrite(path: destination, reason: "it exists already")
        }
        if let data = files.removeValue(forKey: source) {
            files[destination] = data
        } else if directories.contains(source) {
            let renamed = { (path: String) in
                path == source || path.hasPrefix(source + "/") ? destination + path.dropFirst(source.count) : path
            }
            directories = Set(directories.map(renamed))
            files = Dictionary(uniqueKeysWithValues: files.map { (renamed($0.key), $0.value) })
        } else {
            throw LocationError.fileNotFound(path: source)
        }
    }

    package func contents(of path: String) throws -> [String] {
        guard directories.contains(path) else {
            throw LocationError.fileUnreadable(path: path, reason: "cannot list the directory")
        }
        let children = (Array(files.keys) + directories).filter { $0 != path && Self.parent(of: $0) == path }
        return children.map { ($0 as NSString).lastPathComponent }.sorted()
    }
}
