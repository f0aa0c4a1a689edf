import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// The daemon's service group as a real process: signals at awkward moments, a shared
/// socket, a store that cannot be flushed, SIGHUP.
@Suite(.timeLimit(.minutes(5)))
struct DaemonLifecycleTests {
    /// Waits until the daemon's log holds `text`.
    private func waitForLog(_ daemon: DaemonProcess, _ text: String, seconds: Double = 20) async throws {
        try await waitUntil(seconds: seconds) { daemon.stderr.contains(text) }
    }

    @Test func sighupRereadsTheFileAndABadFileKeepsTheRunningConfiguration() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/locationd.conf"
        try "source = simulated\nlog-level = info\n".write(toFile: file, atomically: true, encoding: .utf8)
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--config", file])

        try "source = simulated\nlog-level = loud\n".write(toFile: file, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try await waitForLog(daemon, "SIGHUP: keeping the configuration in force: \(file):2: log-level must be one of")
        #expect(daemon.process.isRunning)
        #expect(try ControlClient.askPatiently("?STATUS;", socketPath: daemon.socketPath) != nil)

        try "source = simulated\nlog-level = info\nzooms = 12\n".write(toFile: file, atomically: true, encoding: .utf8)
        kill(daemon.process.processIdentifier, SIGHUP)
        try await waitForLog(daemon, "SIGHUP: configuration read again; zooms take effect at restart")
        #expect(daemon.stderr.components(separatedBy: "keeping the configuration in force").count == 2)
        #expect(try await daemon.stop().status == 0)
    }

    @Test func reloadTakesTheNewLogLevelAtOnce() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/locationd.conf"
        try "log-level = warning\n".write(toFile: file, atomically: true, encoding: .utf8)
        var source = DaemonConfigurationSource()
        source.explicitFile = file
        source.environment = [:]
        source.flags = [("data-dir", directory.path + "/data")]
        let configuration = try source.resolve()
        let daemon = try Daemon(source: source, configuration: configuration, logger: .init(label: "test"))
        DaemonLogHandler.level.withLock { $0 = configuration.logLevel }
        try "log-level = debug\n".write(toFile: file, atomically: true, encoding: .utf8)
        daemon.reload()
        #expect(DaemonLogHandler.level.withLock { $0 } == .debug)
        try "log-level = debug\nlog-level = info\n".write(toFile: file, atomically: true, encoding: .utf8)
        daemon.reload()
        #expect(DaemonLogHandler.level.withLock { $0 } == .debug, "a bad file changed the level")
    }

    @Test func sigtermTwiceStillFlushesEverythingAndExitsZero() async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"])
        try await waitUntil(seconds: 20) {
            let status = (try? ControlClient.ask("?STATUS;", socketPath: daemon.socketPath)) ?? nil
            return status?.contains(#""state":"live""#) == true
        }
        let newest = try #require(try ControlClient.askPatiently("?LAST;", socketPath: daemon.socketPath))
        let newestTime = try #require(
            (try JSONSerialization.jsonObject(with: Data(newest.utf8)) as? [String: Any])?["time"] as? String)
        kill(daemon.process.processIdentifier, SIGTERM)
        let stopped = try await daemon.stop(with: SIGTERM, within: 20)
        #expect(stopped.status == 0)
        let stored = try JSONDecoder().decode(
            Location.self, from: Data(contentsOf: URL(fileURLWithPath: daemon.dataDirectory + "/lastFix.json")))
        #expect(try #require(stored.time) >= UTCCalendar.parseISO8601(newestTime)!)
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        #expect(daemon.stderr.contains("received SIGTERM; stopping"))
    }

    @Test(arguments: 0..<3)
    func sigtermWhileStartingNeverHangsAndLeavesNothingBehind(attempt: Int) async throws {
        let directory = try TemporaryDirectory()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"], waitForSocket: false)
        // At once, then a little later: before the signal handlers exist (default
        // action), while the stores open, or once the group runs.
        if attempt > 0 {
            try await Task.sleep(for: .milliseconds(attempt * 20))
        }
        let stopped = try await daemon.stop(with: SIGTERM, within: 20)
        switch daemon.process.terminationReason {
        case .exit:
            #expect(stopped.status == 0, "\(daemon.stderr)")
            #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        case .uncaughtSignal:
            #expect(stopped.status == SIGTERM)
        @unknown default:
            Issue.record("ended in an unknown way")
        }
        // The directory is free for the next daemon.
        let next = try await DaemonProcess(dataDirectory: daemon.dataDirectory, arguments: ["--source", "simulated"])
        #expect(try await next.stop().status == 0)
    }

    @Test func aSocketALiveDaemonAnswersOnIsNotTakenOver() async throws {
        let directory = try TemporaryDirectory()
        let socket = directory.path + "/shared.sock"
        let first = try await DaemonProcess(
            dataDirectory: directory.path + "/one", arguments: ["--source", "simulated"], socketPath: socket)
        let second = try await runLocationd([
            "run", "--data-dir", directory.path + "/two", "--source", "simulated", "--socket", socket,
        ])
        #expect(second.status == 69)
        #expect(second.stderr.contains("answers on the control socket \(socket)"))
        #expect(second.stderr.split(separator: "\n").count == 1, "\(second.stderr)")
        // The first still answers on its socket after the second gave up.
        #expect(try ControlClient.askPatiently("?VERSION;", socketPath: socket) != nil)
        #expect(try await first.stop().status == 0)
        #expect(!FileManager.default.fileExists(atPath: socket))
    }

    @Test func aStaleSocketIsReplacedAndAFileThatIsNoSocketIsNot() async throws {
        let directory = try TemporaryDirectory()
        let stale = directory.path + "/stale.sock"
        try makeStaleSocket(at: stale)
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path + "/data", arguments: ["--source", "simulated"], socketPath: stale)
        #expect(try ControlClient.askPatiently("?VERSION;", socketPath: stale) != nil)
        #expect(try await daemon.stop().status == 0)

        let plain = directory.path + "/notes.txt"
        try "keep me".write(toFile: plain, atomically: true, encoding: .utf8)
        let refused = try await runLocationd([
            "run", "--data-dir", directory.path + "/data", "--source", "simulated", "--socket", plain,
        ])
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("it exists and is not a socket"))
        #expect(try String(contentsOfFile: plain, encoding: .utf8) == "keep me")
    }

    @Test func aStoreThatCannotBeFlushedMakesTheExitStatusNonZero() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let daemon = try await DaemonProcess(
            dataDirectory: data, arguments: ["--source", "simulated"], socketPath: directory.path + "/control.sock")
        let socket = daemon.socketPath
        // The time of the daemon's current fix (`?LAST;`), in seconds since 1970.
        let lastFixTime: @Sendable () -> Double = {
            let answer = ((try? ControlClient.ask("?LAST;", socketPath: socket)) ?? nil) ?? ""
            let object = try? JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any]
            guard let text = object?["time"] as? String,
                let time = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
            else { return 0 }
            return time.timeIntervalSince1970
        }
        try await waitUntil(seconds: 60) { lastFixTime() > 0 }
        // A directory where the last fix is kept: the store's temporary file cannot be
        // renamed over it. (The data directory itself removed would stop the daemon at once,
        // DataDirectoryRemovalTests.)
        let lastFix = data + "/" + DataDirectory.Name.lastFix
        try? FileManager.default.removeItem(atPath: lastFix)
        try FileManager.default.createDirectory(atPath: lastFix, withIntermediateDirectories: false)
        let removed = Date().timeIntervalSince1970
        // A fix dated two seconds after that is newer than anything the last fix store
        // wrote, so it waits to be written there, which cannot be done.
        try await waitUntil(seconds: 60) { lastFixTime() >= removed + 2 }
        let stopped = try await daemon.stop(with: SIGTERM, within: 20)
        #expect(stopped.status != 0)
        #expect(daemon.stderr.contains("cannot write"), "\(daemon.stderr)")
    }

    /// Leaves a socket file at `path` that nobody listens on, as a killed daemon does.
    private func makeStaleSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = unixAddress(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0)
    }
}
