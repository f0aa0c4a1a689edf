import Foundation
import LocationProviders
import LocationState

/// Latency: from gpsd's TPV report to a `deviceLocation` listener, with gpsfake
/// feeding a real gpsd.
///
/// A second, raw watcher of the same gpsd timestamps each TPV line as it arrives
/// (a blocking `recv` on its own thread), and a closure listener on
/// `deviceLocation` timestamps the same fix (matched by its time) when it is
/// delivered: GPSDProvider's read and mapping, the coordinator, the state and
/// the listener's queue are all inside the measurement. gpsd writes a report to
/// its watchers one after the other, so the two clients see it a few
/// microseconds apart either way.
func latency() async throws {
    let epochs = 400
    let wanted = 300
    let track = try writeTrack(epochs: epochs)
    defer { try? FileManager.default.removeItem(at: track) }
    // gpsfake's gpsd puts its control socket in TMPDIR, named after gpsfake's pid; in
    // the shared /tmp a stale one of a recycled pid makes gpsfake skip adding the device.
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-latency-\(getpid())")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let port = try freeLoopbackPort()

    let gpsfake = Process()
    gpsfake.executableURL = URL(fileURLWithPath: "/usr/bin/gpsfake")
    // -c 0.02: a sentence every 20 ms, two sentences an epoch: 25 fixes a second.
    gpsfake.arguments = ["-q", "-1", "-P", String(port), "-c", "0.02", "-W", "300", track.path]
    gpsfake.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch.path]) { $1 }
    gpsfake.standardOutput = FileHandle.nullDevice
    gpsfake.standardError = FileHandle.nullDevice
    try gpsfake.run()
    defer {
        // gpsfake does not take its gpsd along when killed: stop it, kill its gpsd, then it.
        kill(gpsfake.processIdentifier, SIGSTOP)
        if let gpsd = childProcess(of: gpsfake.processIdentifier, named: "gpsd") { kill(gpsd, SIGKILL) }
        kill(gpsfake.processIdentifier, SIGKILL)
        gpsfake.waitUntilExit()
    }

    let reported = Stamps()
    let delivered = Stamps()
    let iso = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    let watcher = Thread {
        watchGPSD(port: port) { line in
            let now = ContinuousClock.now
            guard let timeRange = line.range(of: "\"time\":\""), case let rest = line[timeRange.upperBound...],
                let end = rest.firstIndex(of: "\""), let time = try? iso.parse(String(rest[..<end]))
            else { return }
            reported.record(millisecondKey(time), at: now)
        }
    }
    watcher.start()

    let coordinator = LocationCoordinator(freshnessTimeout: .seconds(10))
    let queue = DispatchQueue(label: "locationd-bench.latency.listener")
    let observation = coordinator.deviceLocation.observe(on: queue) { change in
        let now = ContinuousClock.now
        guard let time = change.new?.time else { return }
        delivered.record(millisecondKey(time), at: now)
    }
    defer { observation.cancel() }
    let provider = GPSDProvider(
        host: "127.0.0.1", port: port, backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200)))
    let task = Task { try await coordinator.run(provider) }
    defer { task.cancel() }

    let deadline = ContinuousClock.now + .seconds(60)
    while delivered.count < wanted, ContinuousClock.now < deadline, gpsfake.isRunning {
        try await Task.sleep(for: .milliseconds(100))
    }
    let sent = reported.all
    let microseconds = delivered.all.compactMap { key, at in
        sent[key].map { (at - $0).inSeconds * 1e6 }
    }.sorted()
    guard !microseconds.isEmpty else {
        print(
            "latency: no fix matched (\(sent.count) reported by gpsd, \(delivered.count) delivered); is gpsfake installed?"
        )
        return
    }
    func percentile(_ p: Double) -> Double {
        microseconds[min(microseconds.count - 1, Int(Double(microseconds.count) * p))]
    }
    print(
        String(
            format:
                "gpsd TPV -> deviceLocation listener, %d fixes: min %.0f µs, median %.0f µs, p99 %.0f µs, max %.0f µs",
            microseconds.count, microseconds.first!, percentile(0.5), percentile(0.99), microseconds.last!))
    print(
        String(
            format: "latency: median %.3f ms, p99 %.3f ms (target: median < 1 ms)", percentile(0.5) / 1000,
            percentile(0.99) / 1000))
}

/// When each fix (by ``millisecondKey(_:)``) was seen, written from one thread, read from another.
private final class Stamps: Sendable {
    private let stamps = Locked<[Int: ContinuousClock.Instant]>([:])

    func record(_ key: Int, at instant: ContinuousClock.Instant) { stamps.withLock { $0[key] = instant } }
    var count: Int { stamps.withLock { $0.count } }
    var all: [Int: ContinuousClock.Instant] { stamps.withLock { $0 } }
}

/// A fix time as whole milliseconds since 1970, to match the two clients' views of one fix.
private func millisecondKey(_ date: Date) -> Int { Int((date.timeIntervalSince1970 * 1000).rounded()) }

/// Watches gpsd at `port` over a plain socket and hands each TPV line to `onTPV` as
/// soon as it arrives (the caller stamps it), until gpsd closes the connection.
func watchGPSD(port: Int, onTPV: (String) -> Void) {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    let deadline = ContinuousClock.now + .seconds(20)
    var fd: Int32 = -1
    while true {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        if connected { break }
        close(fd)
        guard ContinuousClock.now < deadline else { return }
        usleep(20_000)
    }
    defer { close(fd) }
    let watch = "?WATCH={\"enable\":true,\"json\":true}\n"
    _ = watch.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return }
        pending += buffer[..<count]
        // gpsd ends lines with CR LF; split on the LF byte (a Swift String would
        // see "\r\n" as one Character).
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            if line.hasPrefix("{\"class\":\"TPV\"") { onTPV(line) }
        }
    }
}

/// An NMEA track of `epochs` 1 s epochs (GGA and RMC), in a temporary file.
private func writeTrack(epochs: Int) throws -> URL {
    var text = ""
    for epoch in 0..<epochs {
        let time = String(format: "%02d%02d%02d.00", 10 + epoch / 3600, epoch / 60 % 60, epoch % 60)
        let lat = String(format: "48%07.4f,N", 7.0 + Double(epoch) * 0.001)
        text += nmeaSentence("GPGGA,\(time),\(lat),01131.0000,E,1,08,0.9,545.4,M,46.9,M,,")
        text += nmeaSentence("GPRMC,\(time),A,\(lat),01131.0000,E,012.0,045.0,221126,,,A")
    }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-\(UUID().uuidString).nmea")
    try text.write(to: url, atomically: true, encoding: .ascii)
    return url
}
