import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// `locationd run` as a real child process, with its data directory and socket.
final class DaemonProcess: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` set in init; ChildProcess is
    // safe for the calls made on it later (signals, isRunning, waitUntilExit).
    let process: ChildProcess
    let dataDirectory: String
    let socketPath: String
    private let errorLog: String

    /// Starts `locationd run --data-dir DIR` with `arguments` and waits until its socket answers.
    /// Without `--http` in `arguments`, its HTTP server listens on a port the kernel chooses
    /// (``httpURL()`` reads it from the log), so that daemons of parallel tests never clash.
    ///
    /// - Parameters:
    ///   - socketPath: passed as `--socket` when given; else the socket is `control.sock` in the directory.
    ///   - launcher: a program and its arguments that start the daemon (`strace -f ... --`);
    ///     signals then go to the daemon, the launcher's child.
    ///   - executable: the `locationd` to run, when not the one built beside the tests.
    ///   - environment: variables set for the daemon on top of the tests' own.
    init(
        dataDirectory: String, arguments: [String], socketPath: String? = nil, waitForSocket: Bool = true,
        launcher: [String] = [], executable: String? = nil, environment: [String: String] = [:]
    ) async throws {
        self.dataDirectory = dataDirectory
        self.socketPath = socketPath ?? dataDirectory + "/control.sock"
        errorLog = dataDirectory + ".stderr"
        _ = FileManager.default.createFile(atPath: errorLog, contents: nil)
        let binary = executable ?? locationdBinary().path
        process = try ChildProcess(
            launcher.first ?? binary,
            (launcher.isEmpty ? [] : launcher.dropFirst() + [binary])
                + ["run", "--data-dir", dataDirectory] + (socketPath.map { ["--socket", $0] } ?? [])
                + (arguments.contains("--http") ? [] : ["--http", "127.0.0.1:0"]) + arguments,
            environment: environment.isEmpty
                ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
            standardError: FileHandle(forWritingAtPath: errorLog).map { .file($0) } ?? .null)
        if waitForSocket {
            let socketPath = self.socketPath
            let process = process
            try await waitUntil(seconds: 20) {
                !process.isRunning || ((try? ControlClient.ask("?VERSION;", socketPath: socketPath)) ?? nil) != nil
            }
            #expect(process.isRunning, "locationd run exited early: \(stderr)")
        }
    }

    deinit {
        if process.isRunning {
            // The daemon under a launcher (strace, setpriv) too; and no unbounded wait: a
            // launcher that never seems to end (strace once stayed a zombie) must not
            // hold up the whole suite, which no time limit can interrupt here.
            kill(daemonPID, SIGKILL)
            kill(process.processIdentifier, SIGKILL)
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline { usleep(10_000) }
        }
        try? FileManager.default.removeItem(atPath: errorLog)
    }

    /// What the daemon logged so far.
    var stderr: String {
        (try? String(contentsOfFile: errorLog, encoding: .utf8)) ?? ""
    }

    /// Every thread's stack in the running daemon (gdb attached for a moment), for the
    /// message of a test that waited in vain: where a stalled daemon is stuck.
    func threadStacks() -> String {
        let output = Pipe()
        guard
            let gdb = try? ChildProcess(
                "/usr/bin/env", ["gdb", "-p", "\(daemonPID)", "-batch", "-nx", "-ex", "thread apply all bt 30"],
                standardOutput: .pipe(output))
        else { return "(gdb could not be started)" }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        gdb.waitUntilExit()
        return text.split(separator: "\n").filter { $0.hasPrefix("#") || $0.hasPrefix("Thread ") }
            .joined(separator: "\n")
    }

    /// The daemon's process: the one started, or the launcher's first child.
    var daemonPID: pid_t {
        let pid = process.processIdentifier
        let children = try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)
        return children?.split(separator: " ").first.flatMap { pid_t($0) } ?? pid
    }

    /// Sends `signal` and waits for the process to exit; returns its status and how long it took.
    func stop(with signal: Int32 = SIGTERM, within seconds: Double = 20) async throws -> (
        status: Int32, seconds: Double
    ) {
        let start = Date()
        kill(daemonPID, signal)
        let process = process
        try await waitUntil(seconds: seconds) { !process.isRunning }
        process.waitUntilExit()
        return (process.terminationStatus, Date().timeIntervalSince(start))
    }
}

extension DaemonProcess {
    /// The HTTP server's port, from the URL the daemon logs at start.
    package func httpPort(sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        let marker = "serving the page and the API at http://127.0.0.1:"
        try await waitUntil(seconds: 20, sourceLocation: sourceLocation) { [self] in
            stderr.contains(marker) || !process.isRunning
        }
        let log = stderr
        let port = log.range(of: marker).flatMap { Int(log[$0.upperBound...].prefix(while: \.isNumber)) }
        return try #require(port, "the daemon logged no HTTP URL: \(log)", sourceLocation: sourceLocation)
    }
}
