import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// The progress bar, seen through a real pseudo-terminal: `script` (util-linux, in every
/// Debian) gives the replay a terminal on stderr, as a user's shell would.
@Suite(.timeLimit(.minutes(10)))
struct ReplayProgressTests {
    /// A file just over the bar's threshold, made of the walk repeated.
    private func largeTrack() throws -> String {
        let walk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Repository.sampleTrack("walk.nmea"))))
        var bytes: [UInt8] = []
        while Int64(bytes.count) < ReplayProgress.minimumSize + 1 << 20 { bytes += walk }
        return try temporaryFile(bytes)
    }

    /// Runs `locationd ARGUMENTS` under `script`, stdout to /dev/null; returns what the terminal showed.
    private func onTerminal(_ arguments: [String]) async throws -> Run {
        let command = ([locationdBinary().path] + arguments).map { "'\($0)'" }.joined(separator: " ") + " > /dev/null"
        return try await runProgram("/usr/bin/script", ["--quiet", "--return", "--command", command, "/dev/null"])
    }

    @Test func largeReplayOnATerminalDrawsABarThenErasesIt() async throws {
        let track = try largeTrack()
        defer { try? FileManager.default.removeItem(atPath: track) }
        let megabytes = (try FileManager.default.attributesOfItem(atPath: track)[.size] as! Int) >> 20
        let run = try await onTerminal(["replay", track, "--speed", "max", "--format", "json"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("] 100% of \(megabytes) MiB"), "terminal showed: \(run.stdout.suffix(300))")
        #expect(run.stdout.contains("[" + String(repeating: "#", count: 40) + "]"))
        // Erased before the summary, so the summary starts on a clean line.
        #expect(run.stdout.contains("\r\u{1B}[K"))
        #expect(run.stdout.contains("fixes"))
    }

    @Test func smallReplayOnATerminalAndLargeReplayIntoAPipeDrawNoBar() async throws {
        let small = try await onTerminal(["replay", Repository.sampleTrack("walk.nmea"), "--speed", "max"])
        #expect(small.status == 0)
        #expect(!small.stdout.contains("%"))
        #expect(small.stdout.contains("300 fixes"))

        let track = try largeTrack()
        defer { try? FileManager.default.removeItem(atPath: track) }
        let piped = try await runLocationd(["replay", track, "--speed", "max", "--format", "json"])
        #expect(piped.status == 0)
        #expect(!piped.stderr.contains("%") && !piped.stderr.contains("\r"))
    }
}
