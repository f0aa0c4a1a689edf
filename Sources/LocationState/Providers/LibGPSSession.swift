import CGPS
import Foundation
import LocationFormats
import LocationState

/// A gpsd session over libgps: `gps_open`, `gps_stream(WATCH_ENABLE | WATCH_JSON)`,
/// `gps_waiting`, `gps_read`, `gps_close`.
///
/// - Important: owned and used by exactly one thread (``GPSDSession``'s rule);
///   the `gps_data_t` it points to is never shared.
package final class LibGPSSession: GPSDSession {
    /// Size of the buffer `gps_read` copies each JSON line into (gpsd's
    /// GPS_JSON_RESPONSE_MAX is 4096 bytes).
    private static let messageCapacity = 4096 + 1

    private let data: UnsafeMutablePointer<gps_data_t>
    private var message: [CChar]
    private var isOpen = true
    /// The socket's receive timeout, which bounds each `gps_read`.
    private let readTimeout: Duration

    private init(data: UnsafeMutablePointer<gps_data_t>, readTimeout: Duration) {
        self.data = data
        self.readTimeout = readTimeout
        self.message = [CChar](repeating: 0, count: Self.messageCapacity)
    }

    deinit {
        close()
        locd_gps_data_free(data)
    }

    /// Connects to gpsd at `host`:`port` and turns on JSON watching.
    ///
    /// The socket gets a receive timeout of `readTimeout`: libgps's `gps_read`
    /// blocks in `recv` while a line is incomplete, and a peer that stops in the
    /// middle of a line must not hold the reader thread forever.
    package static func connect(host: String, port: Int, readTimeout: Duration) throws(GPSDConnectionError)
        -> LibGPSSession
    {
        guard let data = locd_gps_data_new() else {
            throw GPSDConnectionError(reason: "out of memory for the libgps session")
        }
        guard gps_open(host, String(port), data) == 0 else {
            // gps_open leaves one of libgps's negative NL_* codes in errno.
            let code = errno
            locd_gps_data_free(data)
            throw GPSDConnectionError(reason: String(cString: gps_errstr(code)))
        }
        guard moveBelowSelectLimit(data) else {
            gps_close(data)
            locd_gps_data_free(data)
            throw GPSDConnectionError(
                reason: "no file descriptor below \(locd_select_limit()) is free for libgps (too many open files)")
        }
        let session = LibGPSSession(data: data, readTimeout: readTimeout)
        // libgps leaves the socket non-blocking; blocking, with the timeouts below, a
        // read waits in `recv` itself (see `next(timeout:)`).
        let descriptor = locd_fd(data)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        var timeout = timeval(duration: readTimeout)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        enableKeepAlive(descriptor)
        guard gps_stream(data, UInt32(WATCH_ENABLE | WATCH_JSON), nil) == 0 else {
            let reason = SystemCall.message()
            session.close()
            throw GPSDConnectionError(reason: "cannot send the WATCH request: \(reason)")
        }
        return session
    }

    /// Moves the session's socket below select(2)'s limit (1024) when it is above:
    /// `gps_waiting` waits with select, and glibc aborts the whole process on a
    /// larger descriptor. A daemon whose descriptor limit allows more (a shell's
    /// `ulimit -n`, a container's default) can pass 1024 while a flood of control
    /// clients is being refused, and a reconnect to gpsd at that moment would
    /// crash it. False when no descriptor below the limit is free: the caller
    /// gives up this attempt, and the next one comes after the backoff.
    package static func moveBelowSelectLimit(_ data: UnsafeMutablePointer<gps_data_t>) -> Bool {
        let descriptor = locd_fd(data)
        let limit = locd_select_limit()
        guard descriptor >= limit else { return true }
        let lower = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard lower >= 0 else { return false }
        guard lower < limit else {
            Glibc.close(lower)
            return false
        }
        Glibc.close(descriptor)
        locd_set_fd(data, lower)
        return true
    }

    /// How a gpsd that vanishes without closing the connection (its host loses power
    /// or leaves the Wi-Fi) is noticed: TCP keepalive probes after `idle` seconds of
    /// silence, every `interval` seconds, `probes` times, and unacknowledged data
    /// gives up after the same time. The read then fails and the provider reconnects,
    /// about 25 s after the peer went, not after the two hours of the system default.
    package static let keepAlive = (idle: Int32(10), interval: Int32(5), probes: Int32(3))

    /// The session's socket.
    package var descriptor: Int32 { locd_fd(data) }

    private static func enableKeepAlive(_ descriptor: Int32) {
        func set(_ level: Int32, _ option: Int32, _ value: Int32) {
            var value = value
            setsockopt(descriptor, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
        }
        let tcp = Int32(IPPROTO_TCP)
        set(SOL_SOCKET, SO_KEEPALIVE, 1)
        set(tcp, TCP_KEEPIDLE, keepAlive.idle)
        set(tcp, TCP_KEEPINTVL, keepAlive.interval)
        set(tcp, TCP_KEEPCNT, keepAlive.probes)
        let milliseconds = (keepAlive.idle + keepAlive.interval * keepAlive.probes) * 1000
        set(tcp, TCP_USER_TIMEOUT, milliseconds)
    }

    package func waitForInput(timeout: Duration) -> Bool {
        gps_waiting(data, Int32(clamping: timeout.microseconds))
    }

    /// With a `timeout` no shorter than the socket's, `gps_read` alone: it takes a line
    /// libgps already holds, else blocks in `recv` for at most the socket's timeout. No
    /// `select` before each report (`gps_waiting`), one system call a fix fewer.
    package func next(timeout: Duration) throws(GPSDConnectionError) -> GPSDMessage? {
        if timeout < readTimeout, !waitForInput(timeout: timeout) { return nil }
        return try read()
    }

    package func read() throws(GPSDConnectionError) -> GPSDMessage? {
        message[0] = 0
        // Older libgps leaves errno as it was when the peer closes (recv gives 0): a stale
        // EAGAIN from a read that timed out must not make the end look like a late line.
        errno = 0
        let count = message.withUnsafeMutableBufferPointer { buffer in
            gps_read(data, buffer.baseAddress, Int32(buffer.count))
        }
        if count < 0 {
            let code = errno
            // The socket's receive timeout ran out in the middle of a line: the rest
            // is late, not lost (libgps keeps what it has), so the caller looks again.
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw GPSDConnectionError(reason: "the connection was closed or broke")
        }
        if count == 0 { return nil }
        return message.withUnsafeBytes { bytes in
            // The line libgps copied ends at its NUL.
            let line = Self.trimmed(bytes.prefix { $0 != 0 })
            if line.isEmpty { return nil }
            guard let className = GPSDMessage.className(ofJSON: line) else {
                return .unrecognized(excerpt: GPSDMessage.excerpt(String(decoding: line, as: UTF8.self)[...]))
            }
            return decode(className: className)
        }
    }

    /// `line` without the whitespace JSON allows around a value (space, tab, CR, LF),
    /// byte by byte: Foundation's `trimmingCharacters(in:)`, and even the standard
    /// library's `Character.isWhitespace`, cost more than reading the report.
    package static func trimmed(_ line: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = line.firstIndex(where: { !isSpace($0) }), let last = line.lastIndex(where: { !isSpace($0) })
        else { return line[line.startIndex..<line.startIndex] }
        return line[first...last]
    }

    package func close() {
        guard isOpen else { return }
        isOpen = false
        gps_close(data)
    }

    /// Reads the report libgps just unpacked into `data`, by its class.
    private func decode(className: String) -> GPSDMessage {
        switch className {
        case "VERSION":
            return .version(release: String(cString: locd_version_release(data)))
        case "DEVICES":
            let count = max(0, min(Int(locd_device_count(data)), Int(MAXUSERDEVS)))
            return .devices((0..<count).map { String(cString: locd_device_list_path(data, Int32($0))) })
        case "DEVICE":
            return .device(path: String(cString: locd_device_path(data)), active: locd_device_active(data) != 0)
        case "TPV":
            return .tpv(location())
        case "SKY":
            let used = Int(locd_satellites_used(data))
            return .sky(satellitesUsed: used > 0 ? used : nil, hdop: Self.finite(locd_hdop(data)))
        case "ERROR":
            return .error(String(cString: locd_error_message(data)))
        default:
            return .other(className: className)
        }
    }

    /// The TPV report libgps unpacked, as a fix marked `source: .gpsd`.
    private func location() -> Location {
        let fix = locd_fix(data).pointee
        let hasTime = fix.time.tv_sec != 0 || fix.time.tv_nsec != 0
        let device = String(cString: locd_device_path(data))
        return Location(
            time: hasTime
                ? Date(timeIntervalSince1970: TimeInterval(fix.time.tv_sec) + TimeInterval(fix.time.tv_nsec) / 1e9)
                : nil,
            mode: FixMode(rawValue: Int(fix.mode)) ?? .unknown,
            // gpsd leaves `status` out of a TPV for a plain fix (gpsd_json(5)): 1, normal.
            status: fix.status > 0 ? Int(fix.status) : (fix.mode >= 2 ? 1 : nil),
            lat: Self.finite(fix.latitude),
            lon: Self.finite(fix.longitude),
            altHAE: Self.finite(fix.altHAE),
            altMSL: Self.finite(fix.altMSL),
            speed: Self.finite(fix.speed),
            track: Self.finite(fix.track),
            climb: Self.finite(fix.climb),
            eph: Self.finite(fix.eph),
            epv: Self.finite(fix.epv),
            eps: Self.finite(fix.eps),
            epc: Self.finite(fix.epc),
            epx: Self.finite(fix.epx),
            epy: Self.finite(fix.epy),
            geoidSep: Self.finite(fix.geoid_sep),
            source: .gpsd,
            device: device.isEmpty ? nil : device
        )
    }

    /// libgps marks an absent value as NaN; locationd as nil.
    private static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
}

extension GPSDConnector {
    /// The real thing: libgps over TCP; `readTimeout` bounds each blocking read.
    package static func libgps(readTimeout: Duration) -> GPSDConnector {
        GPSDConnector { host, port throws(GPSDConnectionError) in
            try LibGPSSession.connect(host: host, port: port, readTimeout: readTimeout)
        }
    }
}

extension timeval {
    /// A timeval of `duration`, for socket options.
    package init(duration: Duration) {
        let microseconds = duration.microseconds
        self.init(tv_sec: Int(microseconds / 1_000_000), tv_usec: Int(microseconds % 1_000_000))
    }
}
