import Foundation
import LocationState
import Testing

/// A temporary directory for one test, removed when the test ends.
package struct TemporaryDirectory: ~Copyable {
    package let path: String

    package init() throws {
        path = NSTemporaryDirectory() + "locationd-test-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The address of the Unix socket at `path`.
package func unixAddress(_ path: String) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: path.utf8)
        raw[path.utf8.count] = 0
    }
    return address
}

/// Opens a raw client connection to a Unix socket.
package func connectRaw(_ path: String) throws -> FileHandle {
    try connectHandle(socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0), to: unixAddress(path))
}

/// Connects the socket `fd` to `address` (a `sockaddr_un` or `sockaddr_in`) and returns it
/// as a handle whose reads wait at most `receiveTimeout` seconds (long enough for a loaded or
/// sanitized run; a test that waits this long has failed anyway); closes it and throws when
/// the connect fails.
package func connectHandle<Address>(_ fd: Int32, to address: Address, receiveTimeout: Int = 30) throws -> FileHandle {
    var address = address
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<Address>.size))
        }
    }
    guard result == 0 else {
        let code = POSIXErrorCode(rawValue: errno) ?? .ECONNREFUSED
        close(fd)
        throw POSIXError(code)
    }
    var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
}

/// Reads one line (without newline) from a raw connection; nil at end of stream or
/// timeout. The read blocks a thread of its own, not one of Swift concurrency's.
package func readLine(_ handle: FileHandle) async -> String? {
    await offThePool { readLineBlocking(handle) }
}

/// Runs blocking `work` (a read that waits for a daemon, a wait for a child process)
/// on a thread of its own and awaits its result. Swift Testing runs every test's
/// async code on the cooperative pool, one thread per core (two here); tests that
/// blocked those threads for seconds starved the rest, whose waits then timed out
/// although nothing was wrong (on a loaded machine, about one suite run in ten).
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: work()) }
    }
}

/// ``offThePool(_:)`` for work that throws.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// Reads one line (without newline) from a raw connection, blocking the calling
/// thread; nil at end of stream or timeout.
package func readLineBlocking(_ handle: FileHandle) -> String? {
    var bytes: [UInt8] = []
    var byte: UInt8 = 0
    while read(handle.fileDescriptor, &byte, 1) == 1 {
        if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
        bytes.append(byte)
    }
    return nil
}

/// Polls `condition` until it holds, failing the test after `seconds`.
package func waitUntil(
    seconds: Double = 30, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () -> Bool
) async throws {
    _ = try await waitUntil(seconds: seconds, "condition", sourceLocation: sourceLocation) { condition() ? () : nil }
}

/// Polls `value` until it gives one, and returns it; fails the test after `seconds`.
package func waitUntil<Value>(
    seconds: Double = 30, _ description: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ value: () async throws -> Value?
) async throws -> Value {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if let found = try await value() { return found }
        guard Date() < deadline else {
            Issue.record("\(description) not met within \(seconds) s", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        // Every polling test wakes a thread of the two that all the suite's tasks share: at
        // 5 ms, dozens of them kept the pool so busy that a test waiting its turn timed out.
        try await Task.sleep(for: .milliseconds(50))
    }
}

/// Raises this process's soft limit on open descriptors to `wanted`, or to the hard
/// limit if that is lower; returns the soft limit now in force.
@discardableResult
package func raiseDescriptorLimit(to wanted: rlim_t) -> rlim_t {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    if limit.rlim_cur < wanted, limit.rlim_max > limit.rlim_cur {
        limit.rlim_cur = min(limit.rlim_max, wanted)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return limit.rlim_cur
}
