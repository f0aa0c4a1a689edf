import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// A thousand clients at once against a real `locationd run`: the daemon admits its limit,
/// refuses the rest with an error object, keeps streaming to a watcher that was there
/// first, logs the flood in a line or two, and does not grow with each flood.
@Suite(.timeLimit(.minutes(10))) struct ControlFloodTests {
    /// `client` moved to a descriptor of 1024 or more, when the limit allows. The libgps
    /// tests running alongside in this process need a free descriptor below select's
    /// limit of 1024 (the provider refuses a connection otherwise), and a thousand low
    /// ones held at once left them none.
    static func aboveSelectLimit(_ client: FileHandle) -> FileHandle {
        raiseDescriptorLimit(to: 4096)
        let high = fcntl(client.fileDescriptor, F_DUPFD_CLOEXEC, 1024)
        guard high >= 0 else { return client }
        return FileHandle(fileDescriptor: high, closeOnDealloc: true)
    }

    @Test func thousandConnectionsAtOnceAreBoundedAndTheDaemonKeepsServing() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"])
        let watcher = try connectRaw(daemon.socketPath)
        try watcher.write(contentsOf: Data("?WATCH;\n".utf8))
        #expect(await readLine(watcher) == #"{"class":"WATCH","enable":true}"#)

        // The watcher holds one of the slots.
        let free = ControlServer.Limits().maxClients - 1
        var residentAfterFlood: [Int] = []
        for flood in 0..<3 {
            // All thousand are connected before any reply is read.
            var clients: [FileHandle] = []
            for _ in 0..<1000 {
                let client = Self.aboveSelectLimit(try connectRaw(daemon.socketPath))
                try? client.write(contentsOf: Data("?VERSION;\n".utf8))
                clients.append(client)
            }
            var answered = 0
            var refused = 0
            for client in clients {
                switch await readLine(client) {
                case let line? where line.contains(#""class":"VERSION""#): answered += 1
                case #"{"class":"ERROR","message":"too many clients"}"#: refused += 1
                case let other: Issue.record("unexpected answer \(other ?? "nil")")
                }
            }
            // Later floods may meet slots whose clients' close the daemon has not seen yet.
            if flood == 0 { #expect(answered == free) } else { #expect((1...free).contains(answered)) }
            #expect(refused == 1000 - answered)
            clients.removeAll()
            residentAfterFlood.append(try residentKilobytes(of: daemon.process.processIdentifier))
        }

        // The watcher from before the floods still gets fixes, and a new client is served.
        #expect(await readLine(watcher)?.hasPrefix(#"{"class":"TPV""#) == true)
        let socketPath = daemon.socketPath
        try await waitUntil(seconds: 20) {
            ((try? ControlClient.ask("?STATUS;", socketPath: socketPath)) ?? nil) != nil
        }
        // Memory is bounded: the third flood costs no more than the first left behind.
        #expect(
            residentAfterFlood[2] <= residentAfterFlood[0] + 4096, "RSS after each flood: \(residentAfterFlood) KiB")

        let stop = try await daemon.stop()
        #expect(stop.status == 0)
        // About one line per flood (a flood meeting late closes may make two), not one per refused client.
        let floodLines = daemon.stderr.split(separator: "\n").filter { $0.contains("too many clients") }
        #expect((3...6).contains(floodLines.count), "\(floodLines.count) lines for 3 floods")
    }

    /// Watchers cost the daemon no thread each: what they are sent is made on one queue,
    /// so a fix wakes one thread for all of them. (A queue per watcher woke a libdispatch
    /// worker per watcher at each fix; each worker keeps a cache of up to 80 KiB of spent
    /// work items, and the daemon's memory climbed for an hour as they filled: with 60
    /// watchers the daemon ran 67 threads.)
    @Test func sixtyWatchersDoNotStartAThreadEach() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated", "--http", "off"])
        var watchers: [FileHandle] = []
        for _ in 0..<60 {
            let watcher = try connectRaw(daemon.socketPath)
            try watcher.write(contentsOf: Data("?WATCH;\n".utf8))
            watchers.append(watcher)
        }
        // Every watcher gets three fixes: 60 watchers were woken together three times.
        for watcher in watchers {
            #expect(await readLine(watcher) == #"{"class":"WATCH","enable":true}"#)
            for _ in 0..<3 { #expect(await readLine(watcher)?.hasPrefix(#"{"class":"TPV""#) == true) }
        }
        let threads = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(daemon.process.processIdentifier)/task")
        // Without watchers the daemon runs some 15 threads (NIO's, libdispatch's, the main one).
        #expect(threads.count < 30, "\(threads.count) threads with 60 watchers")
        #expect(try await daemon.stop().status == 0)
    }
}

/// A process's resident set (VmRSS) in KiB.
private func residentKilobytes(of pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
        let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
    else { throw POSIXError(.EINVAL) }
    return kilobytes
}
