import LocationState

#if canImport(Glibc)
    import Glibc
#endif

/// Gives the kernel back the pages of the daemon's executable and of its shared
/// libraries that only its start-up touched: code is mapped 64 KiB around each page
/// fault, and a running daemon keeps using a fraction of what start-up brought in
/// (docs/performance.md).
///
/// A few seconds after start, `MADV_PAGEOUT` (Linux 5.4) drops the clean pages of every
/// private file mapping from this process; those it uses again come back on their next
/// access, from the page cache. Written pages stay, pages another process maps too stay,
/// shared mappings (SQLite's WAL index) are not touched, and on an older kernel the call
/// fails and nothing happens.
enum StartupPages {
    /// How long after start the pages are given back: past the start-up of every
    /// service and the first fixes, before a benchmark or a user looks.
    static let delay: Duration = .seconds(5)

    /// `MADV_PAGEOUT` from `<sys/mman.h>` (Linux 5.4 and later).
    private static let pageOut: Int32 = 21

    /// Gives the pages back after ``delay``, unless the task is cancelled first.
    static func releaseLater() -> Task<Void, Never> {
        Task {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            release()
        }
    }

    /// Gives back the pages of the private file mappings (all, or only the
    /// executable's); returns how many bytes of mappings were advised.
    @discardableResult
    static func release(executableOnly: Bool = false) -> Int {
        #if os(Linux)
            guard let executable = readLink("/proc/self/exe"),
                let maps = readWholeFile("/proc/self/maps")
            else { return 0 }
            var advised = 0
            for line in maps.split(separator: "\n") {
                // "start-end perms offset dev inode path"; private ("p") mappings of a file.
                let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
                guard fields.count == 6, fields[1].hasSuffix("p") else { continue }
                let path = fields[5].drop { $0 == " " }
                guard path.hasPrefix("/"), !executableOnly || path == executable else { continue }
                let range = fields[0].split(separator: "-")
                guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                    end > start
                else { continue }
                if madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), pageOut) == 0 {
                    advised += Int(end - start)
                }
            }
            return advised
        #else
            return 0
        #endif
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Reads a /proc file to its end (its size says 0, so it is read in chunks).
    private static func readWholeFile(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
