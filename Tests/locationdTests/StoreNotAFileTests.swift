import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// A store's path that holds a directory: one line saying so, not SQLite's "disk I/O
/// error", from the commands that read the store (exit 66) and from the daemon (exit 73).
@Suite(.timeLimit(.minutes(5)))
struct StoreNotAFileTests {
    /// A data directory whose `name` is a directory, and the line that says so.
    static func dataDirectory(in directory: borrowing TemporaryDirectory, with name: String) throws -> (String, String)
    {
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(atPath: data + "/" + name, withIntermediateDirectories: true)
        return (data, "locationd: \(data)/\(name): is a directory, not a file locationd can use; move it away.\n")
    }

    @Test(arguments: [("tiles", "tiles.sqlite"), ("timeline", "timeline.sqlite")])
    func aReaderSaysTheStoreIsADirectory(command: String, name: String) async throws {
        let directory = try TemporaryDirectory()
        let (data, line) = try Self.dataDirectory(in: directory, with: name)
        let reader = try await runLocationd([command, "--data-dir", data])
        #expect(reader.status == 66)
        #expect(reader.stderr == line)
    }

    @Test func theDaemonSaysItsTimelineIsADirectory() async throws {
        let directory = try TemporaryDirectory()
        let (data, line) = try Self.dataDirectory(in: directory, with: "timeline.sqlite")
        let daemon = try await runLocationd(["run", "--data-dir", data, "--source", "simulated", "--http", "off"])
        #expect(daemon.status == 73, "\(daemon.stderr)")
        #expect(daemon.stderr.hasSuffix(line.dropFirst("locationd: ".count)), "\(daemon.stderr)")
    }
}
