import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

#if canImport(Glibc)
    import Glibc
#endif

/// A `locationd` child process whose stdout is read line by line as it comes.
private final class StreamingRun: @unchecked Sendable {
    // @unchecked Sendable: `process` and `output` are lets set in init; `lines` is a
    // `Locked`, filled by the one reader thread started in init.
    let process: ChildProcess
    private let output = Pipe()
    private let errors = Pipe()
    let lines = Locked<[String]>([])

    init(_ arguments: [String]) throws {
        process = try ChildProcess(
            locationdBinary().path, arguments, standardOutput: .pipe(output), standardError: .pipe(errors))
        let handle = output.fileHandleForReading
        Thread.detachNewThread { [self] in
            while let line = readLineBlocking(handle) { lines.withLock { $0.append(line) } }
        }
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Sends `signal`, waits for the exit and for the end of stdout; returns the status.
    func stop(with signal: Int32) async throws -> Int32 {
        kill(process.processIdentifier, signal)
        let process = process
        try await waitUntil(seconds: 20) { !process.isRunning }
        process.waitUntilExit()
        return process.terminationStatus
    }

    var stderr: String {
        String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
    }
}

@Suite(.timeLimit(.minutes(10))) struct HardeningCommandTests {
    @Test func aLockFileThatIsALinkIsRefusedAndItsTargetKept() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let victim = directory.path + "/victim"
        #expect(FileManager.default.createFile(atPath: victim, contents: Data("keep me\n".utf8)))
        #expect(symlink(victim, data + "/locationd.lock") == 0)
        let run = try await runLocationd([
            "replay", Repository.sampleTrack("walk.nmea"), "--speed", "max", "--data-dir", data,
        ])
        #expect(run.status == 73)
        #expect(run.stderr.contains("symbolic link"))
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")
    }

    @Test func anOpenDataDirectoryIsMadePrivate() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(
            atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let run = try await runLocationd([
            "replay", Repository.sampleTrack("walk.nmea"), "--speed", "max", "--format", "json", "--data-dir", data,
        ])
        #expect(run.status == 0)
        let mode = { (path: String) in
            ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
        }
        #expect(mode(data) == 0o700)
        for file in ["tiles.sqlite", "lastFix.json", "locationd.lock"] {
            #expect(mode(data + "/" + file) == 0o600, "\(file)")
        }
    }

    /// A stored fix whose time is after this machine's clock (the clock behind, as on a
    /// board without a real-time clock before it is set) has no age to show: the line says
    /// so; `--json` keeps the negative number; it is restored (exit 3) either way.
    @Test func aFixAheadOfTheClockHasNoAgeShown() async throws {
        let directory = try TemporaryDirectory()
        let ahead = UTCCalendar.iso8601(Date().addingTimeInterval(3 * 86400 + 600))
        let json = #"{"class":"TPV","mode":3,"time":"\#(ahead)","lat":47.5,"lon":8.5,"source":"gpsd"}"#
        #expect(FileManager.default.createFile(atPath: directory.path + "/lastFix.json", contents: Data(json.utf8)))
        let socket = ["--data-dir", directory.path, "--socket", directory.path + "/none.sock"]
        let run = try await runLocationd(["last"] + socket)
        #expect(run.status == 3)
        #expect(
            run.stdout.contains(
                "age unknown (the fix's time is 3.0 days ahead of this machine's clock)  source restored"),
            "\(run.stdout)")
        let line = try await runLocationd(["last", "--json"] + socket)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.stdout.utf8)) as? [String: Any])
        #expect((object["age"] as? Double).map { $0 < -3 * 86400 } == true, "\(line.stdout)")
        #expect(LastFixAnswer.describe(ageSeconds: -0.3) == "-0.3 s")
        #expect(LastFixAnswer.describe(ageSeconds: 90) == "90.0 s")
    }

    @Test(arguments: ["{}", #"{"class":"TPV","mode":3,"time":"2026-11-20T10:00:00.000Z","lat":999,"lon":1}"#])
    func lastRefusesAnInvalidStoredFix(_ json: String) async throws {
        let directory = try TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: directory.path + "/lastFix.json", contents: Data(json.utf8)))
        let run = try await runLocationd(["last", "--data-dir", directory.path])
        #expect(run.status == 69)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("not valid"), "\(run.stderr)")
    }

    @Test func lastReadsTheStoreWhenTheDaemonHasNoFreeSlot() async throws {
        let directory = try TemporaryDirectory()
        let stored = #"{"class":"TPV","mode":3,"time":"2026-11-20T10:00:00.000Z","lat":52.5,"lon":13.4}"#
        #expect(FileManager.default.createFile(atPath: directory.path + "/lastFix.json", contents: Data(stored.utf8)))
        var limits = ControlServer.Limits()
        limits.maxClients = 1
        let fixture = try await ControlFixture(socketPath: directory.path + "/control.sock", limits: limits)
        defer { Task { await fixture.server.stop() } }
        let holder = try connectRaw(fixture.server.path)
        try holder.write(contentsOf: Data("?VERSION;".utf8))
        #expect(await readLine(holder)?.contains("VERSION") == true)
        // The refusal comes from this test process's own server: when the whole suite keeps
        // it from answering within `last`'s 5 s, `last` says so (exit 69); ask again then.
        var run = try await runLocationd(["last", "--data-dir", directory.path, "--json"])
        for _ in 0..<5 where run.status == 69 && run.stderr.contains("did not answer") {
            run = try await runLocationd(["last", "--data-dir", directory.path, "--json"])
        }
        #expect(run.status == 3, "\(run.stderr)")
        #expect(run.stdout.contains(#""state":"restored""#))
        #expect(run.stderr.contains("too many clients"))
        _ = holder
    }

    @Test func aLongRequestInOneWriteIsRefusedAndClosed() async throws {
        let directory = try TemporaryDirectory()
        let fixture = try await ControlFixture(socketPath: directory.path + "/control.sock")
        defer { Task { await fixture.server.stop() } }
        let client = try connectRaw(fixture.server.path)
        try client.write(contentsOf: Data(("?LAST" + String(repeating: "x", count: 6000) + ";").utf8))
        #expect(await readLine(client) == #"{"class":"ERROR","message":"request too long"}"#)
        #expect(await readLine(client) == nil)
    }

    @Test(arguments: [("json", SIGINT, 130), ("geojson", SIGTERM, 143)])
    func aPacedReplayPrintsEachFixAtOnceAndFlushesOnASignal(format: String, signal: Int32, status: Int32)
        async throws
    {
        let run = try StreamingRun(["replay", Repository.sampleTrack("walk.nmea"), "--speed", "1", "--format", format])
        // At --speed 1 the walk's fixes come a second apart; the first is due at once.
        let wanted = format == "json" ? 2 : 3
        try await waitUntil(seconds: 20) { run.lines.withLock { $0.count } >= wanted }
        #expect(try await run.stop(with: signal) == status)
        let lines = run.lines.withLock { $0 }
        if format == "json" {
            for line in lines { #expect(line.hasPrefix(#"{"class":"TPV""#)) }
        } else {
            let document = try JSONSerialization.jsonObject(with: Data(lines.joined(separator: "\n").utf8))
            let features = (document as? [String: Any])?["features"] as? [Any]
            #expect((features?.count ?? 0) >= 1)
        }
        #expect(run.stderr.contains("interrupted"))
    }
}
