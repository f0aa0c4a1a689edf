import Dispatch
import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationFormats
@testable import LocationState
@testable import LocationStores

/// The fixes `locationd replay` gets from a file (`replay(_:)` of ReplayProviderTests).
private func replayedFixes(_ path: String) async throws -> [Location] {
    try await replay(path).0.compactMap { event in
        if case .fix(let location) = event { location } else { nil }
    }
}

/// Expects equal fix lists, reporting the count or the first fix that differs rather than both lists.
private func expectSameFixes(
    _ actual: [Location], _ expected: [Location], sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(actual.count == expected.count, sourceLocation: sourceLocation)
    if let index = zip(actual, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
        Issue.record(
            "fix \(index) differs: \(actual[index]) instead of \(expected[index])", sourceLocation: sourceLocation)
    }
}

@Test(.timeLimit(.minutes(10))) func aRecordedDriveReplaysToTheSameFixesSplitAtMidnight() async throws {
    let original = try await replayedFixes(Repository.sampleTrack("drive.nmea"))
    #expect(original.count == 600)
    #expect(original[300].time == Date(timeIntervalSince1970: 1_782_864_000))  // 2026-07-01T00:00:00Z
    let directory = try TileFixtures.directory().appendingPathComponent("tracks")
    let recorder = TrackRecorder(directory: directory)
    for fix in original { recorder.record(fix) }
    try recorder.close()

    let files = recorder.files()
    #expect(files.map(\.lastPathComponent) == ["2026-06-30.nmea", "2026-07-01.nmea"])
    // The decoder derives climb from the fix before; the first fix of a file has none.
    var expected = original
    expected[0].climb = nil
    expected[300].climb = nil  // 2026-07-01T00:00:00Z, the first fix of the second file
    var replayed: [Location] = []
    for file in files { replayed += try await replayedFixes(file.path) }
    expectSameFixes(replayed, expected)
    expectSameFixes(try TrackRecorder.fixes(in: files), expected)
}

@Test(.timeLimit(.minutes(10)), arguments: ["walk.nmea", "antimeridian.nmea", "north-pole.nmea", "fix-loss.nmea"])
func aRecordedTrackReplaysToTheSameFixes(track: String) async throws {
    let original = try await replayedFixes(Repository.sampleTrack(track))
    let recorder = TrackRecorder(
        directory: try TileFixtures.directory(), configuration: .init(split: .run, bufferBytes: 1000))
    for fix in original { recorder.record(fix) }
    recorder.record(nil)
    try recorder.close()

    let files = recorder.files()
    #expect(files.count == 1)
    // The recording holds no no-fix epochs: the first fix after a loss has a climb measured
    // from the fix before the loss, as gpsd would derive it from the recorded file (from the
    // receiver's log, the epoch before it had no fix, and so no climb).
    var expected = original
    for index in expected.indices.dropFirst() {
        let (before, after) = (expected[index - 1], expected[index])
        guard let start = before.time, let end = after.time, end.timeIntervalSince(start) > 1.5,
            after.climb == nil, after.mode == .threeD, before.mode == .threeD,
            let from = before.altMSL, let to = after.altMSL
        else { continue }
        expected[index].climb = (to - from) / end.timeIntervalSince(start)
    }
    expectSameFixes(try await replayedFixes(try #require(files.first).path), expected)
}

@Test(.timeLimit(.minutes(10))) func aRunFileIsNamedAfterTheFirstFix() throws {
    let recorder = TrackRecorder(directory: try TileFixtures.directory(), configuration: .init(split: .run))
    recorder.record(TileFixtures.fix(52.5, 13.4, at: 0))  // 2027-01-15T08:00:00Z
    recorder.record(TileFixtures.fix(52.5, 13.4, at: 86_401))  // the next day, same run
    try recorder.close()
    #expect(recorder.files().map(\.lastPathComponent) == ["run-20270115T080000Z.nmea"])
    #expect(try TrackRecorder.fixes(in: recorder.files()).count == 2)
}

@Test(.timeLimit(.minutes(10))) func fixesAreWrittenASecondApartOrWhenTheBufferIsFull() throws {
    let clock = TileTestClock(TileFixtures.time(0))
    let recorder = TrackRecorder(
        directory: try TileFixtures.directory(), configuration: .init(bufferBytes: 1 << 16, writeInterval: .seconds(1)),
        now: { clock.now })
    func written() throws -> Int { try TrackRecorder.fixes(in: recorder.files()).count }

    recorder.record(TileFixtures.fix(52.5, 13.4, at: 0))
    #expect(try written() == 1, "the first fix is written at once")
    recorder.record(TileFixtures.fix(52.5, 13.4, at: 0.5))
    #expect(try written() == 1, "the next waits within the interval")
    clock.advance(by: 1)
    recorder.record(nil)
    #expect(try written() == 2, "a change a second later writes it")
    recorder.record(TileFixtures.fix(52.5, 13.4, at: 1.5))
    try recorder.flush()
    #expect(try written() == 3)

    let small = TrackRecorder(
        directory: try TileFixtures.directory(), configuration: .init(bufferBytes: 1), now: { clock.now })
    for second in 0..<3 { small.record(TileFixtures.fix(52.5, 13.4, at: Double(second))) }
    #expect(try TrackRecorder.fixes(in: small.files()).count == 3, "a full buffer is written whatever the time")
}

@Test(.timeLimit(.minutes(10))) func aLineCutShortByACrashDoesNotSpoilTheNextFix() throws {
    let directory = try TileFixtures.directory()
    let file = directory.appendingPathComponent("2027-01-15.nmea")
    let first = NMEAWriter().text(for: TileFixtures.fix(52.5, 13.4, at: 0))
    try Data((first + "$GPGGA,080001.000,4830.00").utf8).write(to: file)  // killed mid-sentence

    let recorder = TrackRecorder(directory: directory)
    recorder.record(TileFixtures.fix(52.6, 13.5, at: 2))
    try recorder.close()
    let fixes = try TrackRecorder.fixes(in: [file])
    #expect(fixes.map(\.time) == [TileFixtures.time(0), TileFixtures.time(2)])
    #expect(fixes.last?.lat == 52.6)
}

@Test(.timeLimit(.minutes(10))) func gpxExportHoldsTheFixesOfATimeRange() throws {
    let recorder = TrackRecorder(directory: try TileFixtures.directory())
    for second in 0..<10 { recorder.record(TileFixtures.fix(52.5, 13.4 + Double(second) * 0.001, at: Double(second))) }
    try recorder.close()

    let all = try TrackRecorder.gpx(of: recorder.files())
    #expect(all.hasPrefix(Location.gpxHeader) && all.hasSuffix(Location.gpxFooter))
    #expect(all.components(separatedBy: "<trkpt ").count - 1 == 10)
    let some = try TrackRecorder.gpx(of: recorder.files(), during: TileFixtures.time(3)...TileFixtures.time(5))
    #expect(some.components(separatedBy: "<trkpt ").count - 1 == 3)
    #expect(some.contains("<time>2027-01-15T08:00:03.000Z</time>"))
    #expect(!some.contains("<time>2027-01-15T08:00:06.000Z</time>"))
}

@Test(.timeLimit(.minutes(10))) func gpxOfAMissingFileIsAClearError() throws {
    let missing = try TileFixtures.directory().appendingPathComponent("none.nmea")
    #expect(throws: LocationError.fileNotFound(path: missing.path)) { try TrackRecorder.gpx(of: [missing]) }
}

@Test(.timeLimit(.minutes(10))) func aDirectoryThatCannotBeWrittenIsLoggedOnceAndRetried() throws {
    let file = try TileFixtures.directory().appendingPathComponent("a-file")
    try Data("x".utf8).write(to: file)
    let messages = LogRecorder()
    let recorder = TrackRecorder(
        directory: file.appendingPathComponent("tracks"), configuration: .init(bufferBytes: 1),
        logger: messages.logger)
    recorder.record(TileFixtures.fix(52.5, 13.4, at: 0))
    recorder.record(TileFixtures.fix(52.5, 13.4, at: 1))
    #expect(throws: LocationError.self) { try recorder.flush() }
    let errors = messages.events.filter { $0.0 == .error }
    #expect(errors.count == 1)
    #expect(errors.first?.1.contains("Not a directory") == true)
}

@Test(.timeLimit(.minutes(10))) func aTrackRecorderAttachedToTheDeviceLocationRecordsEveryFix() async throws {
    let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
    let recorder = TrackRecorder(directory: try TileFixtures.directory())
    let queue = DispatchQueue(label: "test.tracks")
    deviceLocation.addListener(recorder, on: queue)
    for second in 0..<5 { deviceLocation ~> TileFixtures.fix(52.5, 13.4, at: Double(second)) }
    deviceLocation ~> nil
    try await drain(queue)
    try recorder.close()
    #expect(try TrackRecorder.fixes(in: recorder.files()).map(\.time) == (0..<5).map { TileFixtures.time(Double($0)) })
}

@Suite(.timeLimit(.minutes(10))) struct TrackRecorderFailureTests {
    @Test func aLineCutShortByACrashIsEndedBeforeTheNextSentence() throws {
        let tracks = try TileFixtures.directory().appendingPathComponent("tracks")
        try FileManager.default.createDirectory(at: tracks, withIntermediateDirectories: true)
        let fix = TileFixtures.fix(52.5, 13.4, at: 0)
        let path = tracks.appendingPathComponent(TrackRecorder.dayFileName(fix.time!)).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data("$GPGGA,0800".utf8)))
        let recorder = TrackRecorder(directory: tracks)
        recorder.record(fix)
        try recorder.close()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasPrefix("$GPGGA,0800\r\n$GP"), "\(text.prefix(40))")
    }

    /// A real full disk: a 64 KiB tmpfs, filled but for one page; mounting it needs root.
    @Test(.enabled(if: geteuid() == 0, "mounting a tmpfs needs root"))
    func afterAFullDiskNoByteIsWrittenTwiceAndNoLineIsGlued() throws {
        let root = try TileFixtures.directory()
        let mountPoint = root.appendingPathComponent("disk").path
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        #expect(
            mount("tmpfs", mountPoint, "tmpfs", 0, "size=64k,mode=0700") == 0, "\(String(cString: strerror(errno)))")
        defer { umount(mountPoint) }
        // Fill the disk but for 4 KiB.
        let filler = mountPoint + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT, 0o600)
        let page = [UInt8](repeating: 0, count: 4096)
        while write(fd, page, page.count) == page.count {}
        close(fd)
        #expect(truncate(filler, off_t(60 * 1024)) == 0)
        let fixes = (0..<120).map { TileFixtures.fix(52.5 + Double($0) * 1e-4, 13.4, at: Double($0)) }
        let configuration = TrackRecorder.Configuration(bufferBytes: 1 << 20, writeInterval: .seconds(3600))
        let recorder = TrackRecorder(
            directory: URL(fileURLWithPath: mountPoint + "/tracks"), configuration: configuration)
        for fix in fixes[..<60] { recorder.record(fix) }
        #expect(throws: LocationError.self) { try recorder.flush() }  // ~9 KB pending, 4 KiB free
        #expect(throws: LocationError.self) { try recorder.flush() }  // still full
        #expect(unlink(filler) == 0)
        for fix in fixes[60...] { recorder.record(fix) }
        try recorder.close()

        let reference = root.appendingPathComponent("reference")
        let expected = TrackRecorder(directory: reference, configuration: configuration)
        for fix in fixes { expected.record(fix) }
        try expected.close()
        let name = TrackRecorder.dayFileName(fixes[0].time!)
        let written = try Data(contentsOf: URL(fileURLWithPath: mountPoint + "/tracks/" + name))
        let wanted = try Data(contentsOf: reference.appendingPathComponent(name))
        #expect(written.count == wanted.count)
        #expect(written == wanted)
    }
}
