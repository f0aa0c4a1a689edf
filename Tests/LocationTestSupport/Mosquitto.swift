import Foundation
import LocationState
import Testing

/// A real Mosquitto broker on a free loopback port, in a temporary directory of its
/// own, for one test; stopped (SIGTERM) when released.
package final class Mosquitto: @unchecked Sendable {
    // @unchecked Sendable: `process` is replaced only by `start`/`stop`, which a test
    // calls from one task at a time; the other properties are `let`s.
    package let port: Int
    package let directory: String
    private let configFile: String
    private var process: ChildProcess?

    /// Writes the configuration (anonymous access unless `users` is given, then a
    /// password file made by `mosquitto_passwd -b`; TLS with the server certificate and
    /// key of `tls`) and starts the broker.
    /// With `persistence`, the broker keeps its sessions (and the messages queued for
    /// them) across ``stop()`` and ``start()``, in its directory. `port`: a given one
    /// (one a daemon already tries), else a free one.
    package init(
        users: [String: String] = [:], tls: TestCertificateAuthority? = nil, persistence: Bool = false,
        port: Int? = nil
    ) async throws {
        self.port = try port ?? GPSFake.freeLoopbackPort()
        directory = NSTemporaryDirectory() + "locationd-mosquitto-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        configFile = directory + "/mosquitto.conf"
        // `user`: started by root, Mosquitto would switch to the user `mosquitto`, which
        // cannot read the test's key or write its persistence file.
        var lines = [
            "listener \(self.port) 127.0.0.1", "log_dest stderr", "log_type error",
            "user \(ProcessInfo.processInfo.userName)",
        ]
        lines += persistence ? ["persistence true", "persistence_location \(directory)/"] : ["persistence false"]
        if users.isEmpty {
            lines.append("allow_anonymous true")
        } else {
            let passwords = directory + "/passwords"
            _ = FileManager.default.createFile(atPath: passwords, contents: nil)
            for (user, password) in users {
                let run = try await runProgram("/usr/bin/mosquitto_passwd", ["-b", passwords, user, password])
                try #require(run.status == 0, "mosquitto_passwd: \(run.stderr)")
            }
            lines += ["allow_anonymous false", "password_file \(passwords)"]
        }
        if let tls { lines += ["certfile \(tls.certificateFile)", "keyfile \(tls.keyFile)"] }
        try (lines.joined(separator: "\n") + "\n").write(toFile: configFile, atomically: true, encoding: .utf8)
        try await start()
    }

    deinit {
        if let process {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the broker (again) on the same port; returns when the port accepts connections.
    package func start() async throws {
        let process = try ChildProcess("/usr/sbin/mosquitto", ["-c", configFile])
        self.process = process
        let port = port
        try await waitUntil(seconds: 20) { !process.isRunning || Self.accepts(port: port) }
        try #require(process.isRunning, "mosquitto exited at start")
    }

    /// Stops the broker with SIGTERM (it saves its sessions when persistent) and waits for it to exit.
    package func stop() async {
        guard let process else { return }
        kill(process.processIdentifier, SIGTERM)
        await offThePool { process.waitUntilExit() }
        self.process = nil
    }

    /// Whether something accepts TCP connections on 127.0.0.1:`port`.
    package static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = loopbackAddress(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// `mosquitto_sub -v -q 1 -d` as a real process: every message it prints, as topic and
/// payload, in a ``Mailbox``; its SUBACKs (from `-d`'s debug lines) in another.
package final class MosquittoSubscriber: @unchecked Sendable {
    // @unchecked Sendable: `let`s only; the reader thread posts to the Mailboxes, which lock.
    package let messages = Mailbox<(topic: String, payload: String)>()
    private let subscribed = Mailbox<Bool>()
    private let process: ChildProcess

    /// Subscribes to `topic` on the broker at 127.0.0.1:`port`; `extra` adds
    /// mosquitto_sub options (`-c -i ID`, `--cafile`). Returns once the broker
    /// acknowledged the subscription.
    package init(port: Int, topic: String, extra: [String] = []) async throws {
        // Line-buffered: mosquitto_sub's debug lines (the SUBACK) are otherwise held in
        // its stdout buffer, as it writes to a pipe.
        let output = Pipe()
        process = try ChildProcess(
            "/usr/bin/stdbuf",
            [
                "-oL", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", String(port), "-t", topic, "-v", "-q", "1",
                "-d",
            ] + extra, standardOutput: .pipe(output))
        let (messages, subscribed) = (messages, subscribed)
        let reader = output.fileHandleForReading
        Thread.detachNewThread {
            while let line = readLineBlocking(reader) {
                // -d's debug lines: "Client ID received SUBACK", "Client ID sending PUBACK"...
                if line.hasPrefix("Client ") || line.hasPrefix("Subscribed (mid") {
                    if line.contains("received SUBACK") { subscribed.post(true) }
                    continue
                }
                guard let space = line.firstIndex(of: " ") else { continue }
                messages.post((String(line[..<space]), String(line[line.index(after: space)...])))
            }
        }
        _ = try await subscribed.next(within: .seconds(60), "mosquitto_sub's SUBACK")
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}
