import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// A data directory removed (or moved away) under a running daemon: the daemon stops at
/// once with one line and exit status 73, instead of writing on into files nobody can
/// reach beside a second daemon that the missing lock let start.
@Suite(.timeLimit(.minutes(5)))
struct DataDirectoryRemovalTests {
    @Test(arguments: [false, true])
    func theDaemonStopsWhenItsDataDirectoryGoes(moved: Bool) async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let socket = directory.path + "/control.sock"
        let daemon = try await DaemonProcess(
            dataDirectory: data, arguments: ["--source", "simulated", "--record"], socketPath: socket)
        if moved {
            try FileManager.default.moveItem(atPath: data, toPath: directory.path + "/data.old")
        } else {
            try FileManager.default.removeItem(atPath: data)
        }
        let process = daemon.process
        try await waitUntil(seconds: 60) { !process.isRunning }
        process.waitUntilExit()
        #expect(process.terminationStatus == 73, "\(daemon.stderr)")
        let removed = daemon.stderr.split(separator: "\n").filter { $0.contains("was removed or moved") }
        #expect(removed.count == 1, "\(daemon.stderr)")
        #expect(removed.first?.contains(data) == true)

        // The path is free for a new daemon at once, which makes the directory again.
        let second = try await DaemonProcess(
            dataDirectory: data, arguments: ["--source", "simulated", "--record"], socketPath: socket)
        #expect(second.process.isRunning, "\(second.stderr)")
        #expect(FileManager.default.fileExists(atPath: data + "/locationd.lock"))
        #expect(try await second.stop().status == 0)
    }
}
