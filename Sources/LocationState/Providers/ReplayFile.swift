import LocationState

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file read sequentially in fixed-size chunks through one reused buffer (POSIX `read`).
///
/// Opening fails with ``LocationError`` (`fileNotFound`, `fileUnreadable`) for a
/// missing file, a directory or a file without read permission.
package final class ReplayFile {
    /// Bytes per `read` call.
    package static let chunkSize = 1 << 20

    package let path: String
    /// The size at open time, bytes (0 for pipes and devices).
    package let size: Int64
    private let descriptor: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    /// Whether the next chunk is the file's first, whose magic number is checked.
    private var atStart = true

    /// The magic numbers of compressed files, which would otherwise replay as garbage.
    package static let compressors: [(magic: [UInt8], name: String)] = [
        ([0x1F, 0x8B], "gzip"), ([0x42, 0x5A, 0x68], "bzip2"), ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], "xz"),
        ([0x28, 0xB5, 0x2F, 0xFD], "zstd"),
    ]

    package init(path: String) throws(LocationError) {
        self.path = path
        let (descriptor, info) = try SystemCall.openForReading(path)
        if (info.st_mode & S_IFMT) == S_IFDIR {
            close(descriptor)
            throw .fileUnreadable(path: path, reason: ReplayFile.directory)
        }
        self.descriptor = descriptor
        self.size = (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : 0
        buffer = .allocate(byteCount: ReplayFile.chunkSize, alignment: 16)
    }

    /// Why a directory cannot be replayed.
    private static let directory = "it is a directory, not a track file"

    /// Checks, without opening it (a FIFO's writer would see its reader go), that `path`
    /// is there, readable and no directory, as ``init(path:)`` would find it; returns its
    /// size in bytes (0 for pipes and devices).
    package static func check(path: String) throws(LocationError) -> Int64 {
        var info = stat()
        guard stat(path, &info) == 0 else { throw SystemCall.readingError(path, errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .fileUnreadable(path: path, reason: directory) }
        guard access(path, R_OK) == 0 else { throw SystemCall.readingError(path, errno) }
        return (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : 0
    }

    deinit {
        buffer.deallocate()
        close(descriptor)
    }

    /// Reads the next chunk into the shared buffer and passes it to `body`; false at end of file.
    ///
    /// - Throws: `compressed` (exit 65) when the file starts with a compressor's magic number.
    package func next(_ body: (UnsafeRawBufferPointer) -> Void) throws(LocationError) -> Bool {
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count > 0 {
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
                if atStart, let compressor = Self.compressors.first(where: { chunk.starts(with: $0.magic) }) {
                    throw .compressed(path: path, by: compressor.name)
                }
                atStart = false
                body(chunk)
                return true
            }
            if count == 0 { return false }
            let code = errno
            if code == EINTR { continue }
            throw .fileUnreadable(path: path, reason: SystemCall.message(code))
        }
    }
}
