import Foundation
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationUplinks

/// The uplinks' outbox: each fix stored once, a cursor per target, nothing removed until
/// every target has it.
@Suite(.timeLimit(.minutes(10))) struct UplinkOutboxTests {
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)

    private static func fix(_ second: Int) -> Location {
        Location(
            time: start.addingTimeInterval(Double(second)), mode: .threeD, lat: 52.5 + Double(second) * 1e-5,
            lon: 13.35, speed: 1.5, eph: 4, source: .gpsd)
    }

    @Test func aFixStaysUntilEveryTargetHasItAndCursorsSurviveReopening() throws {
        try withTemporaryDirectory { path in
            let directory = URL(fileURLWithPath: path)
            do {
                let outbox = try UplinkOutbox(directory: directory, now: Self.start)
                // Targets made before any fix start at the beginning.
                let cursors = try outbox.cursors(for: ["a", "b"])
                #expect(cursors == ["a": .init(delivered: 0), "b": .init(delivered: 0)])
                for second in 0..<5 { try outbox.append(Self.fix(second), moving: second > 2, at: Self.start) }
                let fixes = try outbox.fixes(after: 0, limit: 10)
                #expect(fixes.map(\.id) == [1, 2, 3, 4, 5])
                #expect(fixes.map(\.moving) == [false, false, false, true, true])
                #expect(fixes[3].location == Self.fix(3))
                try outbox.setCursor(.init(delivered: 4), for: "a")
                try outbox.setCursor(.init(delivered: 2, ahead: 5), for: "b")
                // b has only 1 and 2 in order: 3, 4 and 5 stay.
                #expect(try outbox.prune() == 2)
                #expect(outbox.count == 3)
            }
            #expect(try permissions(path + "/" + UplinkOutbox.fileName) == 0o600)
            let reopened = try UplinkOutbox(directory: directory, now: Self.start)
            #expect(reopened.count == 3 && reopened.newestID == 5)
            // Read from the file this time (nothing in memory): the same fixes.
            #expect(try reopened.fixes(after: 2, limit: 10).map(\.location) == (2..<5).map(Self.fix))
            // A target not seen before starts at the newest fix; one no longer named is forgotten.
            let cursors = try reopened.cursors(for: ["b", "c"])
            #expect(cursors["b"] == .init(delivered: 2, ahead: 5))
            #expect(cursors["c"] == .init(delivered: 5))
            #expect(try reopened.cursors(for: ["b", "c"])["a"] == nil)
            #expect(try reopened.count(after: 2) == 3)
        }
    }

    /// Beyond its bound the oldest fixes go, counted, with one warning per episode.
    @Test func theBoundDropsTheOldestCountedAndLoggedOnce() throws {
        try withTemporaryDirectory { path in
            let log = LogRecorder()
            let outbox = try UplinkOutbox(
                directory: URL(fileURLWithPath: path), bounds: .init(maximumFixes: 3), logger: log.logger,
                now: Self.start)
            _ = try outbox.cursors(for: ["a"])
            for second in 0..<6 { try outbox.append(Self.fix(second), moving: nil, at: Self.start) }
            #expect(outbox.count == 3 && outbox.dropped == 3)
            #expect(try outbox.fixes(after: 0, limit: 10).map(\.id) == [4, 5, 6])
            #expect(log.events.filter { $0.message.contains("uplink outbox full") }.count == 1)
        }
    }

    /// Two weeks after the last fix, the age bound empties what nobody took.
    @Test func theAgeBoundDropsFixesOlderThanItsMaximum() throws {
        try withTemporaryDirectory { path in
            let directory = URL(fileURLWithPath: path)
            do {
                let outbox = try UplinkOutbox(directory: directory, now: Self.start)
                _ = try outbox.cursors(for: ["a"])
                try outbox.append(Self.fix(0), moving: nil, at: Self.start)
            }
            let later = try UplinkOutbox(directory: directory, now: Self.start.addingTimeInterval(14 * 86_400))
            #expect(later.count == 0 && later.dropped == 1 && later.newestID == 1)
        }
    }

    /// A file that is not an outbox is moved aside with a warning, and a new one starts.
    @Test func aCorruptFileIsMovedAsideAndANewOutboxStarts() throws {
        try withTemporaryDirectory { path in
            let file = path + "/" + UplinkOutbox.fileName
            try Data(repeating: 0xA5, count: 8192).write(to: URL(fileURLWithPath: file))
            let log = LogRecorder()
            let outbox = try UplinkOutbox(directory: URL(fileURLWithPath: path), logger: log.logger, now: Self.start)
            #expect(outbox.count == 0)
            let names = try FileManager.default.contentsOfDirectory(atPath: path)
            #expect(names.contains { $0.hasPrefix(UplinkOutbox.fileName + ".corrupt-") })
            #expect(log.events.contains { $0.level == .warning })
        }
    }
}
