import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FileSystem {
    /// The real file system, through POSIX calls.
    public static let live = FileSystem(
        createDirectory: { try Posix.createDirectory($0) },
        load: { try Posix.load($0) },
        save: { try Posix.save($0, to: $1) },
        moveItem: { try Posix.move($0, to: $1) },
        contentsOfDirectory: { path in
            do {
                return try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw LocationError.fileUnreadable(path: path, reason: "cannot list the directory")
            }
        }
    )
}

/// The POSIX calls behind ``FileSystem/live``.
private enum Posix {
    package static func createDirectory(_ path: String) throws {
        try DataDirectory.create(path: path)
    }

    package static func load(_ path: String) throws -> Data? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            let why = errno == ELOOP ? "it is a symbolic link" : SystemCall.message()
            throw LocationError.fileUnreadable(path: path, reason: why)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw LocationError.fileUnreadable(path: path, reason: SystemCall.message())
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw LocationError.fileUnreadable(path: path, reason: "it is not a regular file")
        }
        let tooLarge = LocationError.fileUnreadable(
            path: path, reason: "it is larger than \(FileSystem.maxFileBytes) bytes, too large for a stored state")
        guard info.st_size <= FileSystem.maxFileBytes else { throw tooLarge }
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw LocationError.fileUnreadable(path: path, reason: SystemCall.message())
            }
            if count == 0 { return data }
            data.append(contentsOf: chunk[..<count])
            guard data.count <= FileSystem.maxFileBytes else { throw tooLarge }
        }
    }

    package static func save(_ data: Data, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary =
            "\(directory.isEmpty ? "." : directory)/.\(name).tmp-\(getpid())-\(UInt32.random(in: .min ... .max))"
        do {
            try writeSynced(data, to: temporary)
            guard rename(temporary, path) == 0 else {
                throw LocationError.cannotWrite(path: path, reason: SystemCall.message())
            }
        } catch {
            unlink(temporary)
            throw error
        }
        try syncDirectory(directory.isEmpty ? "." : directory)
    }

    private static func writeSynced(_ data: Data, to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw LocationError.cannotWrite(path: path, reason: SystemCall.message())
        }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else {
            throw LocationError.cannotWrite(path: path, reason: SystemCall.message())
        }
        let written = data.withUnsafeBytes { SystemCall.writeAll(descriptor, $0) }
        guard written.count == data.count else {
            throw LocationError.cannotWrite(path: path, reason: SystemCall.message(written.errorNumber))
        }
        guard fsync(descriptor) == 0 else {
            throw LocationError.cannotWrite(path: path, reason: SystemCall.message())
        }
    }

    private static func syncDirectory(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw LocationError.cannotWrite(path: path, reason: SystemCall.message())
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw LocationError.cannotWrite(path: path, reason: SystemCall.message())
        }
    }

    package static func move(_ source: String, to destination: String) throws {
        var info = stat()
        guard lstat(destination, &info) != 0, errno == ENOENT else {
            throw LocationError.cannotWrite(path: destination, reason: "it exists already")
        }
        guard rename(source, destination) == 0 else {
            throw LocationError.cannotWrite(path: destination, reason: SystemCall.message())
        }
    }
}
