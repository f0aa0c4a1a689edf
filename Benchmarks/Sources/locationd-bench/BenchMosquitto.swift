import Foundation

/// A Mosquitto broker on a free loopback port, anonymous, without persistence, in a
/// temporary directory of its own.
final class BenchMosquitto {
    let port: Int
    private let directory: URL
    private let process: Process

    init() throws {
        port = try freeLoopbackPort()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "locationd-bench-mosquitto-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let configuration = directory.appendingPathComponent("mosquitto.conf")
        try [
            "listener \(port) 127.0.0.1", "allow_anonymous true", "persistence false", "log_dest none",
            "user \(ProcessInfo.processInfo.userName)",
        ].joined(separator: "\n").appending("\n").write(to: configuration, atomically: true, encoding: .utf8)
        process = try startProcess("/usr/sbin/mosquitto", ["-c", configuration.path])
        let port = port
        try waitFor("mosquitto on port \(port)") { brokerAccepts(port: port) }
    }

    func stop() {
        stopProcess(process)
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
private func brokerAccepts(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    return connectLoopback(fd, port: port)
}
