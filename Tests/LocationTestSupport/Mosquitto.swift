import Foundation
import LocationState
import Testing

/// A real Mosquitto broker on a free loopback port, in a temporary directory of its
/// own, for one test; stopped (SIGTERM) when released.
package final class Mosquitto: @unchecked Sendable {
    // @unchecked Sendable: `pid` is replaced only by `start`/`stop`, which a test
    // calls from one task at a time; the other properties are `let`s.
    package let port: Int
    package let directory: String
    private let configFile: String
    private var pid: pid_t?

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
        if let pid {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Starts the broker (again) on the same port; returns when the port accepts connections.
    ///
    /// Spawned with an empty signal mask: Foundation's `Process` starts children from
    /// a Dispatch thread whose mask blocks SIGTERM, and Mosquitto does not unblock it.
    /// And with only the standard descriptors: it would otherwise inherit every socket the
    /// test process holds (SwiftNIO's are not close-on-exec), and keep, say, another test's
    /// stopped server listening.
    package func start() async throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let words: [String] = ["/usr/sbin/mosquitto", "-c", configFile]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { word in strdup(word) } + [nil]
        defer { for argument in arguments { free(argument) } }
        var spawned: pid_t = 0
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let addCloseFrom = try #require(
            Self.addCloseFrom, "glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)")
        try #require(addCloseFrom(&actions, 3) == 0, "posix_spawn_file_actions_addclosefrom_np failed")
        let result = posix_spawn(&spawned, words[0], &actions, &attributes, arguments, environ)
        #expect(result == 0, "cannot start mosquitto: \(String(cString: strerror(result)))")
        guard result == 0 else { throw POSIXError(.ECHILD) }
        pid = spawned
        let (pid, port) = (spawned, port)
        try await waitUntil(seconds: 20) { !Self.isRunning(pid) || Self.accepts(port: port) }
        try #require(Self.isRunning(pid), "mosquitto exited at start")
    }

    /// Stops the broker with SIGTERM (it saves its sessions when persistent) and waits for it to exit.
    package func stop() async {
        guard let pid else { return }
        kill(pid, SIGTERM)
        await offThePool {
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        self.pid = nil
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the
    /// Glibc module does not declare (it is a GNU extension); nil without it.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = dlsym(
            dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np"
        ).map {
            unsafeBitCast(
                $0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }

    /// Whether the child `pid` has not exited (and not been reaped).
    private static func isRunning(_ pid: pid_t) -> Bool {
        var status: Int32 = 0
        return waitpid(pid, &status, WNOHANG) == 0
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
    private let process = Process()

    /// Subscribes to `topic` on the broker at 127.0.0.1:`port`; `extra` adds
    /// mosquitto_sub options (`-c -i ID`, `--cafile`). Returns once the broker
    /// acknowledged the subscription.
    package init(port: Int, topic: String, extra: [String] = []) async throws {
        // Line-buffered: mosquitto_sub's debug lines (the SUBACK) are otherwise held in
        // its stdout buffer, as it writes to a pipe.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments =
            [
                "-oL", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", String(port), "-t", topic, "-v", "-q", "1",
                "-d",
            ] + extra
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
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
