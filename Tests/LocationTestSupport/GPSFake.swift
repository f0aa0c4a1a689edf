import Foundation
import LocationState
import Testing

/// A real gpsd started by `gpsfake` on a loopback port, fed with an NMEA log.
///
/// gpsfake starts gpsd (`-P PORT`) and writes one sentence every `cycle`
/// seconds (`-c`) into a pseudo-terminal, once (`-1`) or in a loop. gpsd opens
/// that terminal only when a client watches (no `-n`), and flushes what waits
/// in it when it does, so gpsfake's writes do not wait for a client: a client
/// that comes late misses the start of the log, and one that comes after the
/// log has been written once gets nothing at all (on a loaded machine, a
/// client started a few seconds late sees no fix).
///
/// A log played once is therefore held: gpsfake single-steps (`-i -l`), waiting
/// for a line on its standard input before each sentence, and `startFeeding()`
/// lets it go once gpsd has the terminal open. A looping log needs no hold: it
/// comes round again.
///
/// Each gpsfake gets a directory of its own as `TMPDIR`, where its gpsd puts
/// the control socket gpsfake names after its own pid. In the shared /tmp, a
/// socket left by a killed gpsd whose pid had come round again made gpsfake
/// think its new gpsd ready before it was: the device was never added, and no
/// client ever saw a fix. gpsfake's messages go to a file there too, and an
/// error quotes them.
package final class GPSFake: @unchecked Sendable {
    // @unchecked Sendable: every stored property is set once in init; ChildProcess is
    // thread safe, and `hold` is only written to, by
    // startFeeding.
    package let port: Int
    private let process: ChildProcess
    /// The write end of gpsfake's standard input while a log played once waits.
    private let hold: FileHandle?
    /// The number of lines in the log, so `startFeeding` steps through all of it.
    private let lines: Int
    /// gpsfake's `TMPDIR`, removed by `stop()`.
    private let directory: String
    /// What adding the terminal to gpsd went through, for a failure's message.
    private let addTrace = AddTrace()

    /// The steps of ``addDevice(of:controlDirectory:port:trace:)``, as they happen.
    package final class AddTrace: Sendable {
        private let steps = Locked<[String]>([])
        func note(_ step: String) { steps.withLock { if $0.last != step { $0.append(step) } } }
        var text: String { steps.withLock { $0.suffix(6).joined(separator: " / ") } }
    }

    /// Starts gpsfake with `log` on `port` (a free one when nil). With `once`,
    /// nothing is fed until `startFeeding()`.
    package init(log: URL, port: Int? = nil, cycle: Double = 0.05, once: Bool = false) throws {
        self.port = try port ?? Self.freeLoopbackPort()
        directory = NSTemporaryDirectory() + "locationd-gpsfake-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var arguments = ["-q", "-P", String(self.port), "-c", String(cycle), "-W", "300"]
        var input = ChildProcess.Stream.null
        if once {
            let pipe = Pipe()
            input = .pipe(pipe)
            hold = pipe.fileHandleForWriting
            lines = try Data(contentsOf: log).reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            arguments += ["-1", "-i", "-l"]
        } else {
            hold = nil
            lines = 0
        }
        arguments.append(log.path)
        let errors = directory + "/gpsfake.err"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process = try ChildProcess(
            "/usr/bin/gpsfake", arguments,
            environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": directory]) { $1 },
            standardInput: input, standardError: FileHandle(forWritingAtPath: errors).map { .file($0) } ?? .null)
        let (pid, directory, port, trace) = (process.processIdentifier, directory, self.port, addTrace)
        Thread.detachNewThread { Self.addDevice(of: pid, controlDirectory: directory, port: port, trace: trace) }
    }

    /// Adds gpsfake's terminal to its gpsd through gpsd's control socket, as gpsfake
    /// itself does, until gpsd lists it (`?DEVICES;`): gpsfake waits only for the
    /// socket's file to exist, and a connect between gpsd's bind and its listen fails,
    /// after which gpsfake carries on without telling anyone. gpsd then has no device,
    /// and no client gets a fix (seen about once in ten suite runs on a loaded machine,
    /// most often with a client already watching when gpsd starts). An add that comes
    /// second gets gpsd's "ERROR" (already there), which is harmless. Gives up when
    /// gpsfake ends or after 30 s.
    private static func addDevice(of gpsfake: pid_t, controlDirectory: String, port: Int, trace: AddTrace) {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline, kill(gpsfake, 0) == 0 {
            // gpsfake opens the terminal to everyone just after creating it; added before
            // that, gpsd (which drops root) fails to open it and forgets the device.
            guard let terminal = terminal(of: gpsfake) else {
                trace.note("no terminal open to all yet")
                usleep(20_000)
                continue
            }
            guard
                let socketName = try? FileManager.default.contentsOfDirectory(atPath: controlDirectory)
                    .first(where: { $0.hasSuffix(".sock") }),
                let connection = try? connectRaw(controlDirectory + "/" + socketName)
            else {
                trace.note("no control socket")
                usleep(20_000)
                continue
            }
            // gpsd reads the command up to the NUL and answers "OK" or "ERROR".
            try? connection.write(contentsOf: Data("+\(terminal)\r\n\0".utf8))
            let answer = readLineBlocking(connection)
            try? connection.close()
            trace.note("added \(terminal): \(answer ?? "no answer")")
            if answer != nil {
                if gpsd(on: port, lists: terminal) {
                    trace.note("listed")
                    return
                }
                trace.note("not listed")
            }
            usleep(20_000)
        }
        trace.note(kill(gpsfake, 0) == 0 ? "gave up after 30 s" : "gpsfake ended")
    }

    /// Whether the gpsd on `port` names `device` in its answer to `?DEVICES;`.
    private static func gpsd(on port: Int, lists device: String) -> Bool {
        devices(on: port).contains(#""path":"\#(device)""#)
    }

    /// What the gpsd on `port` answers to `?DEVICES;` now (its DEVICES line), or why nothing.
    private static func devices(on port: Int) -> String {
        guard let connection = try? connectTCP(port: port) else { return "no connection" }
        defer { try? connection.close() }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(
            connection.fileDescriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try? connection.write(contentsOf: Data("?DEVICES;\n".utf8))
        while let line = readLineBlocking(connection) {
            if line.contains(#""class":"DEVICES""#) { return line }
        }
        return "no DEVICES answer"
    }

    /// Whether everyone may read and write `path`.
    private static func isOpenToAll(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & 0o006 == 0o006
    }

    /// The pseudo-terminal gpsfake writes the log into, among those `pid` has open
    /// (gpsfake keeps the slave end open; gpsd opens it): the one open to everyone, as
    /// gpsfake makes it. A terminal gpsfake inherited (a test process's own) is not open
    /// to everyone: taken for gpsfake's, it was added to gpsd in vain, and counted as
    /// gpsd's device before gpsd had opened the real one.
    private static func terminal(of pid: pid_t) -> String? {
        let directory = "/proc/\(pid)/fd"
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        return descriptors.lazy.compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)
        }
        .first { $0.hasPrefix("/dev/pts/") && isOpenToAll($0) }
    }

    /// Runs `body`; when it throws, records what gpsfake and `log` said first, so
    /// that a failure with gpsd in it shows why.
    package func explaining<T>(
        _ log: CapturedLog, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch {
            let lines = log.lines.pending.suffix(8).joined(separator: "\n")
            Issue.record(
                "gpsd \(gpsdPID.map { "pid \($0)" } ?? "not running") on port \(port); gpsfake says: \(messages)\nadding its terminal: \(addTrace.text); gpsd's devices now: \(Self.devices(on: port))\nlog:\n\(lines)",
                sourceLocation: sourceLocation)
            throw error
        }
    }

    /// The last lines gpsfake (and its gpsd) wrote to standard error, on one line.
    package var messages: String {
        let text = (try? String(contentsOfFile: directory + "/gpsfake.err", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isNewline).suffix(3).joined(separator: " / ")
    }

    /// Lets a log played once go, as soon as gpsd has opened gpsfake's terminal
    /// (a client is watching): from then on no sentence is lost for want of a
    /// reader. gpsd may still flush the first sentence or two while it sets the
    /// line up. Throws when gpsd has not opened the terminal within `limit`.
    ///
    /// - Parameter held: lines at the end of the log that gpsfake is not let go of, so
    ///   that it (and its gpsd's device) stays up after the lines before them.
    package func startFeeding(within limit: Duration = .seconds(30), holdingBack held: Int = 0) async throws {
        guard let hold else { return }
        try await awaitReader(within: limit)
        // One line per sentence; a pipe holds far more than any test log needs.
        try hold.write(contentsOf: Data(repeating: UInt8(ascii: "\n"), count: max(0, lines - held)))
    }

    /// Lets `count` more lines of a log played once go, after ``startFeeding(within:holdingBack:)``
    /// held some back, as soon as gpsd has the terminal open (a client watches): a test that
    /// plays its log in stages, waiting for what each does, or that starts another client.
    package func feed(lines count: Int, within limit: Duration = .seconds(30)) async throws {
        guard let hold else { return }
        try await awaitReader(within: limit)
        try hold.write(contentsOf: Data(repeating: UInt8(ascii: "\n"), count: count))
    }

    /// Waits until gpsd has opened gpsfake's terminal; throws after `limit`.
    private func awaitReader(within limit: Duration) async throws {
        let deadline = ContinuousClock.now + limit
        while !(gpsdPID.map(Self.hasTerminalOpen) ?? false) {
            guard ContinuousClock.now < deadline else {
                throw NoClient(
                    description: "gpsd did not open gpsfake's terminal within \(limit): "
                        + (gpsdPID == nil ? "no gpsd runs" : "no client watches") + "; gpsfake says: \(messages)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Whether process `pid` has a pseudo-terminal open (gpsd has no other).
    private static func hasTerminalOpen(_ pid: pid_t) -> Bool { terminal(of: pid) != nil }

    deinit { stop() }

    /// The gpsd that gpsfake started (its child named gpsd), once it runs.
    package var gpsdPID: pid_t? {
        let parent = process.processIdentifier
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for entry in entries {
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let name = stat[stat.index(after: stat.firstIndex(of: "(")!)..<close]
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            if name == "gpsd", fields.count > 1, pid_t(fields[1]) == parent { return pid }
        }
        return nil
    }

    /// Kills gpsd with SIGKILL, as a crash would, then stops gpsfake.
    package func killGPSD() { stop() }

    /// Kills gpsd and gpsfake (SIGKILL: gpsfake ignores SIGTERM while a client
    /// is connected) and reaps gpsfake, so that the port is free afterwards.
    package func stop() {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        guard process.isRunning else { return }
        // Stopped first, gpsfake cannot start a gpsd between the look-up and the kill.
        kill(process.processIdentifier, SIGSTOP)
        let gpsd = gpsdPID
        if let gpsd { kill(gpsd, SIGKILL) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if let gpsd { Self.awaitExit(of: gpsd) }
    }

    /// Blocks until `pid` has exited (gone or a zombie, either way its port is
    /// closed), for at most 5 s: the next gpsd may then bind the same port.
    private static func awaitExit(of pid: pid_t) {
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")"),
                stat[stat.index(close, offsetBy: 2)] != "Z"
            else { return }
            usleep(10_000)
        }
    }

    package struct NoClient: Error, CustomStringConvertible {
        package let description: String
    }

    /// A TCP port on 127.0.0.1 that nothing listens on right now, for a server started
    /// later (gpsd, Mosquitto) or for none: below the kernel's ephemeral range (32768 and
    /// up), at random, so that while it stays free no connection of the other tests
    /// takes it as its local port (a client polling a free ephemeral port can even
    /// connect to itself), which left gpsd unable to bind it.
    ///
    /// A port is handed out once per process: two tests of the suite that drew the same
    /// port, each to start a server on it later, left the second one's gpsd unable to bind.
    package static func freeLoopbackPort() throws -> Int {
        for _ in 0..<100 {
            let port = Int.random(in: 20_000..<32_000)
            guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            guard let (fd, _) = try? listenOnLoopback(backlog: 1, port: port) else { continue }
            close(fd)
            return port
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// The ports ``freeLoopbackPort()`` has handed out in this process.
    private static let handedOut = Locked<Set<Int>>([])
}

/// A small NMEA track written for the tests: GGA, GSA, GSV and RMC per epoch, with
/// correct checksums, moving north-east from a start point at 1 s epochs.
package struct TestTrack {
    /// One epoch's position as gpsd will report it.
    package struct Point: Hashable {
        var lat: Double
        var lon: Double
    }

    package let points: [Point]
    package let sentences: [String]
    /// Every how many epochs one goes without its RMC (nil: none does).
    package let rmcSkippedEvery: Int?
    /// Every how many epochs one goes without its GGA (nil: none does).
    package let ggaSkippedEvery: Int?

    /// A track of `epochs` epochs starting at `lat`, `lon` (degrees); with `rmcSkippedEvery`,
    /// the last epoch of every such many has no RMC, as from a receiver that drops a
    /// sentence now and then (gpsd then learns GGA as a cycle ender too, and reports
    /// twice an epoch: after GGA with a speed it computed, after RMC with the receiver's);
    /// with `ggaSkippedEvery`, the last epoch of every such many has no GGA (gpsd reports
    /// it once, after RMC, without an altitude).
    package init(
        epochs: Int = 30, lat: Double = 48.1173, lon: Double = 11.5167, rmcSkippedEvery: Int? = nil,
        ggaSkippedEvery: Int? = nil
    ) {
        self.rmcSkippedEvery = rmcSkippedEvery
        self.ggaSkippedEvery = ggaSkippedEvery
        var points: [Point] = []
        var sentences: [String] = []
        for epoch in 0..<epochs {
            // Positions on the NMEA grid (1e-4 minute) so that gpsd reports them exactly.
            let latMinutes = (lat * 60 * 10_000).rounded() / 10_000 + Double(epoch) * 0.002
            let lonMinutes = (lon * 60 * 10_000).rounded() / 10_000 + Double(epoch) * 0.003
            points.append(Point(lat: latMinutes / 60, lon: lonMinutes / 60))
            let time = String(format: "12%02d%02d.00", epoch / 60, epoch % 60)
            let latField = String(
                format: "%02d%07.4f,N", Int(latMinutes / 60), latMinutes.truncatingRemainder(dividingBy: 60))
            let lonField = String(
                format: "%03d%07.4f,E", Int(lonMinutes / 60), lonMinutes.truncatingRemainder(dividingBy: 60))
            if !Self.skips(epoch: epoch, every: ggaSkippedEvery) {
                sentences.append(Self.sentence("GPGGA,\(time),\(latField),\(lonField),1,08,0.9,545.4,M,46.9,M,,"))
            }
            sentences.append(Self.sentence("GPGSA,A,3,04,05,09,12,17,20,24,25,,,,,1.8,0.9,1.5"))
            sentences.append(Self.sentence("GPGSV,2,1,08,04,45,090,40,05,30,180,38,09,60,270,42,12,20,010,35"))
            sentences.append(Self.sentence("GPGSV,2,2,08,17,50,120,41,20,25,300,36,24,70,200,44,25,15,060,33"))
            if !Self.skips(epoch: epoch, every: rmcSkippedEvery) {
                sentences.append(Self.sentence("GPRMC,\(time),A,\(latField),\(lonField),012.0,045.0,221126,,,A"))
            }
        }
        self.points = points
        self.sentences = sentences
    }

    /// Writes the track to a temporary file named after what it holds, so that
    /// test runs reuse one file per track instead of leaving a new one each time
    /// (the write is atomic, so concurrent tests may write the same track).
    package func write() throws -> URL {
        let first = points[0]
        let name = String(
            format: "locationd-track-%d-%.6f-%.6f-%d-%d.nmea", points.count, first.lat, first.lon, rmcSkippedEvery ?? 0,
            ggaSkippedEvery ?? 0)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        try (sentences.joined(separator: "\r\n") + "\r\n").write(to: url, atomically: true, encoding: .ascii)
        return url
    }

    /// Whether epoch number `epoch` goes without an RMC.
    package func hasNoRMC(epoch: Int) -> Bool { Self.skips(epoch: epoch, every: rmcSkippedEvery) }

    /// Whether epoch number `epoch` goes without a GGA.
    package func hasNoGGA(epoch: Int) -> Bool { Self.skips(epoch: epoch, every: ggaSkippedEvery) }

    /// Whether epoch number `epoch` is the last of `every` epochs (nil: none is).
    private static func skips(epoch: Int, every: Int?) -> Bool { every.map { epoch % $0 == $0 - 1 } ?? false }

    /// Whether `lat`, `lon` is one of the track's points (to 1e-7 degree).
    package func contains(lat: Double, lon: Double) -> Bool {
        points.contains { abs($0.lat - lat) < 1e-7 && abs($0.lon - lon) < 1e-7 }
    }

    /// `$body*CS` with NMEA's XOR checksum.
    package static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$" + body + String(format: "*%02X", checksum)
    }
}
