import Foundation
import LocationTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `locationd export --output`: a file is replaced whole; a FIFO, a character device,
/// `-` or a link to standard output is written into and stays what it was; anything
/// else is refused with one line.
@Suite(.timeLimit(.minutes(5)))
struct ExportOutputTests {
    /// The day's GPX as stdout gives it, and the data directory holding it.
    private static func expected(in directory: borrowing TemporaryDirectory) async throws -> (data: String, gpx: String)
    {
        let data = try ExportCommandTests.recordedData(in: directory)
        let run = try await runLocationd(["export", "--data-dir", data, "2026-05-14"])
        #expect(run.status == 0 && run.stdout.hasPrefix("<?xml"), "\(run.stderr)")
        return (data, run.stdout)
    }

    private static func kind(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }

    @Test func aFIFOIsWrittenIntoAndStaysAFIFO() async throws {
        let directory = try TemporaryDirectory()
        let (data, gpx) = try await Self.expected(in: directory)
        let fifo = directory.path + "/out.fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // A second name for the FIFO, so that a reader still waiting when the export has
        // ended (because it replaced the FIFO) can be released.
        #expect(link(fifo, fifo + ".2") == 0)
        let reader = Task {
            await offThePool { () -> String in
                guard let handle = FileHandle(forReadingAtPath: fifo) else { return "cannot open" }
                return String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            }
        }
        let run = try await runLocationd(["export", "--data-dir", data, "2026-05-14", "--output", fifo])
        #expect(run.status == 0, "\(run.stderr)")
        let release = open(fifo + ".2", O_WRONLY | O_NONBLOCK)
        if release >= 0 { close(release) }
        #expect(await reader.value == gpx)
        #expect(Self.kind(fifo) == S_IFIFO)
    }

    @Test func aCharacterDeviceIsWrittenIntoAndStaysADevice() async throws {
        let directory = try TemporaryDirectory()
        let (data, _) = try await Self.expected(in: directory)
        // As root, devices of our own (mknod) stand for /dev/null and /dev/full, which an
        // export that replaced them would destroy; otherwise /dev/null is safe to name.
        let root = geteuid() == 0
        let null = root ? directory.path + "/null" : "/dev/null"
        if root { #expect(mknod(null, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0) }
        let run = try await runLocationd(["export", "--data-dir", data, "2026-05-14", "--output", null])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.kind(null) == S_IFCHR)
    }

    /// A device that refuses the bytes (a /dev/full of our own): exit 74 with one line, and
    /// the device stays a device.
    @Test(.enabled(if: geteuid() == 0, "makes a character device of its own (mknod), which needs root"))
    func aFullDeviceFailsWithOneLineAndStaysADevice() async throws {
        let directory = try TemporaryDirectory()
        let (data, _) = try await Self.expected(in: directory)
        let full = directory.path + "/full"
        #expect(mknod(full, S_IFCHR | 0o666, dev_t(1 << 8 | 7)) == 0)
        let failed = try await runLocationd(["export", "--data-dir", data, "2026-05-14", "--output", full])
        #expect(failed.status == 74)
        #expect(failed.stderr.contains("No space left on device"), "\(failed.stderr)")
        #expect(failed.stderr.split(separator: "\n").count == 1, "\(failed.stderr)")
        #expect(Self.kind(full) == S_IFCHR)
    }

    @Test(arguments: ["-", "/proc/self/fd/1", "link"])
    func standardOutputIsWrittenInto(output: String) async throws {
        let directory = try TemporaryDirectory()
        let (data, gpx) = try await Self.expected(in: directory)
        var path = output
        if output == "link" {
            path = directory.path + "/stdout.gpx"
            #expect(symlink("/proc/self/fd/1", path) == 0)
        }
        let run = try await runLocationd(["export", "--data-dir", data, "2026-05-14", "--output", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == gpx)
        if output == "link" { #expect(Self.kind(path) == S_IFLNK) }
    }

    @Test func aLinkToAFileHasItsTargetReplacedAndStaysALink() async throws {
        let directory = try TemporaryDirectory()
        let (data, gpx) = try await Self.expected(in: directory)
        let target = directory.path + "/target.gpx"
        try "old\n".write(toFile: target, atomically: true, encoding: .utf8)
        let link = directory.path + "/link.gpx"
        #expect(symlink(target, link) == 0)
        let run = try await runLocationd(["export", "--data-dir", data, "2026-05-14", "--output", link])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(Self.kind(link) == S_IFLNK)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == gpx)
    }

    @Test(arguments: ["directory", "socket", "dangling"])
    func anythingElseIsRefusedAndKept(kind: String) async throws {
        let directory = try TemporaryDirectory()
        let (data, _) = try await Self.expected(in: directory)
        let path = directory.path + "/" + kind
        var listener: Int32 = -1
        switch kind {
        case "directory":
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case "socket":
            listener = try bindUnixSocket(path)
        default:
            #expect(symlink(directory.path + "/nothing", path) == 0)
        }
        defer { if listener >= 0 { close(listener) } }
        let before = Self.kind(path)
        let run = try await runLocationd(["export", "--data-dir", data, "2026-05-14", "--output", path])
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(Self.kind(path) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/nothing"))
    }
}

/// A Unix stream socket bound at `path` (a file system object that is no file).
private func bindUnixSocket(_ path: String) throws -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
    return descriptor
}
