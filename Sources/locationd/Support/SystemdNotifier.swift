#if canImport(Glibc)
    import Glibc
#endif

/// The sd_notify(3) protocol, without libsystemd: one datagram to `$NOTIFY_SOCKET`.
///
/// Does nothing when the daemon was not started by systemd with `Type=notify`.
enum SystemdNotifier {
    /// Sends a state string such as `READY=1` or `STOPPING=1`; returns whether it was delivered.
    @discardableResult
    static func notify(_ state: String) -> Bool {
        guard let path = getenv("NOTIFY_SOCKET").map({ String(cString: $0) }), !path.isEmpty else { return false }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1)
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                message.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, target, socklen_t(length)) }
            }
        }
        return sent == message.count
    }
}
