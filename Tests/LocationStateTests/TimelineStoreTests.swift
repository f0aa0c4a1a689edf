import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationState
@testable import LocationTimeline

/// The timeline on disk: real SQLite files in a temporary directory.
@Suite(.timeLimit(.minutes(10)))
struct TimelineStoreTests {
    typealias T = MotionTrack

    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("timeline-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A recorder with the default thresholds on a store in `directory`.
    static func recorder(in directory: URL) throws -> TimelineRecorder {
        let logger = Logger(label: "test")
        return TimelineRecorder(
            configuration: MotionConfiguration(), store: try TimelineStore(directory: directory, logger: logger),
            logger: logger)
    }

    /// Two stays and the trip between them, and the tracker after the second stay was left.
    static func recorded(into recorder: TimelineRecorder) {
        var fixes = MotionTrackerTests.still(0, 400)
        fixes += (1...30).map { T.fix(400 + Double($0), north: 20 * Double($0)) }
        fixes += MotionTrackerTests.still(440, 800, north: 600)
        fixes += [T.fix(810, north: 1000)]
        for fix in fixes { recorder.ingest(fix) }
    }

    /// What a recorder stores is there when the file is opened again: the closed stays and
    /// trip, the stay still closing and the open trip (from the tracker's state), in time order.
    @Test func storesWhatClosesAndTheOpenState() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = try Self.recorder(in: directory)
        Self.recorded(into: recorder)
        try recorder.close()
        let reader = try TimelineStore.openReadOnly(at: directory.appendingPathComponent("timeline.sqlite"))
        let entries = try reader.entries(from: T.time(-3600), to: T.time(3600))
        let kinds = entries.map { entry -> String in
            switch entry {
            case .stay(let stay): stay.isOpen ? "open stay" : "stay"
            case .trip(let trip): trip.isOpen ? "open trip" : "trip"
            }
        }
        #expect(kinds == ["stay", "trip", "stay", "open trip"], "\(entries.map(\.jsonString))")
        let mode = try FileManager.default.attributesOfItem(atPath: reader.url.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// A new recorder on the same file goes on where the last one stopped: the open stay
    /// keeps its start across a restart.
    @Test func openStayGoesOnAfterARestart() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = Logger(label: "test")
        let first = try Self.recorder(in: directory)
        for fix in MotionTrackerTests.still(0, 400) { first.ingest(fix) }
        #expect(first.motion.value.stoppedSince == T.time(0))
        try first.close()
        let second = TimelineRecorder(
            configuration: MotionConfiguration(stayDistance: 150),
            store: try TimelineStore(directory: directory, logger: logger), logger: logger)
        #expect(second.motion.value.stoppedSince == T.time(0))
        #expect(second.tracker.configuration.stayDistance == 150)
        for fix in MotionTrackerTests.still(410, 600) { second.ingest(fix) }
        #expect(second.tracker.openStay?.start == T.time(0))
        #expect(second.tracker.openStay?.fixes == 41 + 20)
    }

    /// A file that is not a timeline is moved aside, with one warning, and a new one starts.
    @Test func corruptFileIsMovedAside() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("timeline.sqlite").path
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let log = LogRecorder()
        let store = try TimelineStore(directory: directory, logger: log.logger)
        #expect(try store.entries(from: .distantPast, to: .distantFuture).isEmpty)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains { $0.hasPrefix("timeline.sqlite.corrupt-") })
        #expect(log.events.count == 1)
        let warning = try #require(log.events.first?.message)
        #expect(log.events.first?.level == .warning)
        // One story: what was wrong and where the file went, not the readers' "left untouched".
        #expect(warning.hasPrefix("timeline \(path) is not a usable database ("), "\(warning)")
        #expect(warning.contains("; moved it to \(path).corrupt-") && !warning.contains("untouched"), "\(warning)")
    }

    /// A stay a gap drops after a trip reached it: the stored trip loses its `to`, in the
    /// same transaction, and no stay, closed or open, is left under that start.
    @Test func droppedStayTakesTheStoredTripsTo() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = try Self.recorder(in: directory)
        let fixes = MotionDroppedStayTests.arriveThenGap(901)
        for fix in fixes.dropLast() { recorder.ingest(fix) }
        try recorder.close()
        let reader = try TimelineStore.openReadOnly(at: directory.appendingPathComponent("timeline.sqlite"))
        func trips() throws -> [Trip] {
            try reader.entries(from: T.time(-3600), to: T.time(7200)).compactMap {
                if case .trip(let trip) = $0 { trip } else { nil }
            }
        }
        func stays() throws -> [Stay] {
            try reader.entries(from: T.time(-3600), to: T.time(7200)).compactMap {
                if case .stay(let stay) = $0 { stay } else { nil }
            }
        }
        // Before the gap: the trip reached the stay, which is open.
        let arrival = try #require(try trips().first?.to)
        #expect(try stays().contains { $0.start == arrival && $0.isOpen })

        // The fix after the gap, and the two after it that show the time moved on.
        recorder.ingest(try #require(fixes.last))
        recorder.ingest(T.fix(860 + 901 + 1, north: 3000))
        recorder.ingest(T.fix(860 + 901 + 2, north: 3000))
        try recorder.close()
        #expect(try trips().count == 1)
        #expect(try trips().first?.to == nil)
        #expect(try trips().first?.from == T.time(0))
        #expect(try stays().map(\.start) == [T.time(0)])
        #expect(try stays().allSatisfy { !$0.isOpen })
    }
}
