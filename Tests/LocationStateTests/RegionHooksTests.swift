import Foundation
import LocationTestSupport
import Testing

@testable import LocationRegions
@testable import LocationState

/// The on-enter / on-leave commands, as real processes.
@Suite(.timeLimit(.minutes(10)))
struct RegionHooksTests {
    static let event = RegionEvent(
        kind: .enter, region: "home", name: "Home $HOME; rm", time: Date(timeIntervalSince1970: 1_795_000_000),
        lat: 52.5, lon: 13.4, eph: 4.5, simulated: true)

    /// Runs one event through hooks built with `onEnter` and returns the outcome.
    static func outcome(
        of onEnter: [String], timeout: Duration = .seconds(20), log: LogRecorder = LogRecorder()
    ) async throws -> RegionHooks.Outcome {
        let (stream, continuation) = AsyncStream.makeStream(of: RegionHooks.Outcome.self)
        let hooks = RegionHooks(
            onEnter: onEnter, onLeave: nil, timeout: timeout, logger: log.logger,
            finished: { _, outcome in continuation.yield(outcome) })
        hooks.run(event)
        return try await withTimeLimit("the hook's outcome") {
            var iterator = stream.makeAsyncIterator()
            return await iterator.next() ?? .skipped
        }
    }

    @Test func aHangingHookIsKilledAfterItsTimeoutWithOneLogLine() async throws {
        let log = LogRecorder()
        #expect(try await Self.outcome(of: ["/bin/sleep", "60"], timeout: .milliseconds(300), log: log) == .timedOut)
        #expect(
            log.messages(at: .warning) == [
                "on-enter hook /bin/sleep for region 'home' did not finish within 0.3 seconds; killed it"
            ])
    }

    @Test func aFailingHookGivesOneLogLine() async throws {
        let log = LogRecorder()
        #expect(try await Self.outcome(of: ["/bin/false"], log: log) == .exited(1))
        #expect(log.messages(at: .warning) == ["on-enter hook /bin/false for region 'home' failed with exit status 1"])
    }

    @Test func aMissingCommandGivesOneLogLine() async throws {
        let log = LogRecorder()
        #expect(try await Self.outcome(of: ["/nonexistent/hook"], log: log) == .notStarted("No such file or directory"))
        #expect(log.messages(at: .error).count == 1)
    }

    /// A hook holds its standard streams and none of the daemon's other descriptors: the
    /// end of a pipe this process holds (not close-on-exec, like SwiftNIO's sockets) is
    /// not among the hook's.
    @Test func aHookHoldsNoneOfTheDaemonsDescriptors() async throws {
        let held = Pipe()
        let heldName = try FileManager.default.destinationOfSymbolicLink(
            atPath: "/proc/self/fd/\(held.fileHandleForWriting.fileDescriptor)")
        #expect(heldName.hasPrefix("pipe:"))
        try await withTemporaryDirectory { directory in
            let output = directory + "/descriptors"
            let command = ["/bin/sh", "-c", #"for f in /proc/$$/fd/*; do readlink "$f"; done > "$0"; exit 0"#, output]
            #expect(try await Self.outcome(of: command) == .exited(0))
            let names = try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(names.contains("/dev/null"), "\(names)")
            #expect(!names.contains(heldName), "\(names)")
            #expect(!names.contains { $0.hasPrefix("socket:") || $0.hasPrefix("anon_inode:") }, "\(names)")
        }
    }

    /// The event reaches the command in its environment, and nothing of it is parsed
    /// by a shell: the name with `$HOME; rm` arrives as written.
    @Test func theEventIsInTheEnvironment() async throws {
        try await withTemporaryDirectory { directory in
            let output = directory + "/env"
            let command = RegionHooks.arguments(#"/bin/sh -c 'env > "$0"' "# + output)
            #expect(command == ["/bin/sh", "-c", #"env > "$0""#, output])
            #expect(try await Self.outcome(of: command) == .exited(0))
            let lines = Set(try String(contentsOfFile: output, encoding: .utf8).split(separator: "\n").map(String.init))
            for expected in [
                "LOCATIOND_EVENT=enter", "LOCATIOND_REGION_ID=home", "LOCATIOND_REGION_NAME=Home $HOME; rm",
                "LOCATIOND_TIME=2026-11-18T11:06:40.000Z", "LOCATIOND_LAT=52.500000000", "LOCATIOND_LON=13.400000000",
                "LOCATIOND_EPH=4.500", "LOCATIOND_SIMULATED=1",
            ] {
                #expect(lines.contains(expected), "\(expected)")
            }
        }
    }

    @Test func theEventAsJSON() {
        #expect(
            Self.event.jsonString
                == #"{"class":"REGION","event":"enter","region":"home","name":"Home $HOME; rm","time":"2026-11-18T11:06:40.000Z","lat":52.500000000,"lon":13.400000000,"simulated":true}"#
        )
    }
}
