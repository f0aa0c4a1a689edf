import Foundation
import GRDB
import LocationTestSupport
import Testing

@testable import LocationMQTT
@testable import LocationProviders
@testable import LocationState

@Suite(.timeLimit(.minutes(10))) struct MQTTOutboxTests {
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func keepsOrderAcrossReopeningAndRemovesOnlyWhatIsAcknowledged() throws {
        try withTemporaryDirectory { path in
            let directory = URL(fileURLWithPath: path)
            let log = LogRecorder()
            do {
                let outbox = try MQTTOutbox(directory: directory, logger: log.logger, now: Self.start)
                for index in 0..<5 {
                    try outbox.append(
                        topic: "t/\(index)", payload: Array("\(index)".utf8), retain: index % 2 == 0,
                        at: Self.start)
                }
                let first = try outbox.messages(after: nil, limit: 2)
                #expect(first.map(\.topic) == ["t/0", "t/1"])
                #expect(first.map(\.retain) == [true, false])
                try outbox.remove([first[1].id])
                #expect(outbox.count == 4)
            }
            #expect(try permissions(path + "/" + MQTTOutbox.fileName) == 0o600)
            let reopened = try MQTTOutbox(directory: directory, logger: log.logger, now: Self.start)
            #expect(reopened.count == 4)
            let all = try reopened.messages(after: nil, limit: 100)
            #expect(all.map(\.topic) == ["t/0", "t/2", "t/3", "t/4"])
            #expect(all.map { String(decoding: $0.payload, as: UTF8.self) } == ["0", "2", "3", "4"])
            #expect(try reopened.messages(after: all[1].id, limit: 1).map(\.topic) == ["t/3"])
            #expect(log.events.isEmpty)
        }
    }

    @Test func dropsTheOldestBeyondTheCountAndLogsOnce() throws {
        try withTemporaryDirectory { path in
            let log = LogRecorder()
            let outbox = try MQTTOutbox(
                directory: URL(fileURLWithPath: path), bounds: .init(maximumMessages: 3, maximumAge: 86_400),
                logger: log.logger, now: Self.start)
            for index in 0..<10 {
                try outbox.append(topic: "t/\(index)", payload: [], retain: false, at: Self.start)
            }
            #expect(outbox.count == 3)
            #expect(outbox.dropped == 7)
            #expect(try outbox.messages(after: nil, limit: 10).map(\.topic) == ["t/7", "t/8", "t/9"])
            #expect(log.messages(at: .warning).count == 1)
        }
    }

    /// The publisher stores the messages it sent directly in one batch: after what is
    /// there, in their order, with their own creation times, the count bound applied.
    @Test func aBatchGoesAfterWhatIsThereInOrderWithinTheBounds() throws {
        try withTemporaryDirectory { path in
            let log = LogRecorder()
            let outbox = try MQTTOutbox(
                directory: URL(fileURLWithPath: path), bounds: .init(maximumMessages: 4, maximumAge: 86_400),
                logger: log.logger, now: Self.start)
            let first = try outbox.append(topic: "t/0", payload: [0], retain: false, at: Self.start)
            let second = try outbox.append(topic: "t/1", payload: [1], retain: false, at: Self.start)
            let entries = (2..<6).map { index in
                MQTTOutbox.Entry(
                    topic: "t/\(index)", payload: [UInt8(index)], retain: index == 5,
                    createdAt: Self.start.addingTimeInterval(Double(index)))
            }
            let ids = try outbox.append(contentsOf: entries, at: Self.start.addingTimeInterval(10))
            #expect(ids == [second + 1, second + 2, second + 3, second + 4])
            #expect(first < second)
            #expect(outbox.count == 4)
            #expect(outbox.dropped == 2)
            for fromFile in [false, true] {
                let kept = try outbox.messages(after: nil, limit: 10, fromFile: fromFile)
                #expect(kept.map(\.topic) == ["t/2", "t/3", "t/4", "t/5"])
                #expect(kept.map(\.id) == ids)
                #expect(kept.map(\.createdAt) == entries.map(\.createdAt))
                #expect(kept.map(\.retain) == [false, false, false, true])
            }
            #expect(try outbox.messages(after: ids[1], limit: 10).map(\.topic) == ["t/4", "t/5"])
            #expect(try outbox.append(contentsOf: [], at: Self.start).isEmpty)
        }
    }

    @Test func dropsWhatIsOlderThanTheMaximumAge() throws {
        try withTemporaryDirectory { path in
            let directory = URL(fileURLWithPath: path)
            let log = LogRecorder()
            let bounds = MQTTOutbox.Bounds(maximumMessages: 100, maximumAge: 3600)
            do {
                let outbox = try MQTTOutbox(directory: directory, bounds: bounds, logger: log.logger, now: Self.start)
                try outbox.append(topic: "old", payload: [], retain: false, at: Self.start)
                try outbox.append(topic: "new", payload: [], retain: false, at: Self.start.addingTimeInterval(3000))
            }
            // Opened again two hours later: the first is over the age, the second not.
            let later = try MQTTOutbox(
                directory: directory, bounds: bounds, logger: log.logger, now: Self.start.addingTimeInterval(4000))
            #expect(try later.messages(after: nil, limit: 10).map(\.topic) == ["new"])
            #expect(later.dropped == 1)
        }
    }

    /// The newest messages are handed over from memory; what they give must be what the
    /// file gives, for every starting point, across removals and drops by the count bound.
    @Test func messagesFromMemoryAreThoseOfTheFile() throws {
        try withTemporaryDirectory { path in
            let directory = URL(fileURLWithPath: path)
            let bounds = MQTTOutbox.Bounds(maximumMessages: 400, maximumAge: 86_400)
            let outbox = try MQTTOutbox(directory: directory, bounds: bounds, now: Self.start)
            var random = SplitMix64(seed: 11)
            for index in 0..<700 {
                try outbox.append(
                    topic: "t/\(index)", payload: Array("\(index)".utf8), retain: false,
                    at: Self.start.addingTimeInterval(Double(index)))
                if random.next() % 7 == 0 {
                    let oldest = try outbox.messages(after: nil, limit: 3)
                    try outbox.remove(oldest.map(\.id))
                }
                guard index % 50 == 49 else { continue }
                let all = try outbox.messages(after: nil, limit: 1000, fromFile: true)
                #expect(all.count == outbox.count)
                for start in [nil] + all.map(\.id) + [all.last!.id - 300, all.first!.id - 1] {
                    let limit = Int(random.next() % 120) + 1
                    #expect(
                        try outbox.messages(after: start, limit: limit)
                            == outbox.messages(after: start, limit: limit, fromFile: true),
                        "after \(String(describing: start))")
                }
            }
        }
    }

    /// The age bound is applied at most once a minute while appending, and then fully.
    @Test func theAgeBoundIsAppliedAtMostOnceAMinute() throws {
        try withTemporaryDirectory { path in
            let bounds = MQTTOutbox.Bounds(maximumMessages: 100, maximumAge: 10)
            let outbox = try MQTTOutbox(directory: URL(fileURLWithPath: path), bounds: bounds, now: Self.start)
            for second in 0..<30 {
                try outbox.append(
                    topic: "t/\(second)", payload: [], retain: false, at: Self.start.addingTimeInterval(Double(second)))
            }
            #expect(outbox.count == 30)  // applied at the start only
            try outbox.append(topic: "t/61", payload: [], retain: false, at: Self.start.addingTimeInterval(61))
            #expect(try outbox.messages(after: nil, limit: 100).map(\.topic) == ["t/61"])
            #expect(outbox.count == 1)
            #expect(outbox.dropped == 30)
        }
    }

    /// A message sent as it comes costs one page in the WAL: the outbox numbers its
    /// messages itself (an AUTOINCREMENT sequence row would be a second page) and keeps
    /// no index on the age (a third).
    @Test func anAppendWritesOnePageToTheLog() throws {
        try withTemporaryDirectory { path in
            let outbox = try MQTTOutbox(directory: URL(fileURLWithPath: path), now: Self.start)
            let log = path + "/" + MQTTOutbox.fileName + "-wal"
            func logBytes() throws -> Int {
                try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int ?? 0
            }
            try outbox.append(topic: "t/0", payload: Array(repeating: 0x7B, count: 200), retain: true, at: Self.start)
            let before = try logBytes()
            for index in 1...100 {
                try outbox.append(
                    topic: "t/\(index)", payload: Array(repeating: 0x7B, count: 200), retain: true,
                    at: Self.start.addingTimeInterval(Double(index) / 10))
            }
            // A WAL frame is a 24-byte header and a 4,096-byte page. The table's leaf
            // page each time, and a few more where a leaf fills and splits (111 here);
            // a sequence row or an index would make it over 200.
            let pages = Double(try logBytes() - before) / Double(24 + 4096)
            #expect(pages >= 100 && pages < 130, "\(pages) pages for 100 appends")
            #expect(try outbox.messages(after: nil, limit: 200).count == 101)
        }
    }

    /// An outbox written by an earlier locationd (AUTOINCREMENT ids, an index on the
    /// age) opens with its messages in order; new ones come after them, and the index
    /// goes.
    @Test func anOutboxOfTheEarlierLayoutKeepsItsOrder() throws {
        try withTemporaryDirectory { path in
            let file = path + "/" + MQTTOutbox.fileName
            let old = try DatabaseQueue(path: file)
            try old.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE message (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL,
                            payload BLOB NOT NULL, retain INTEGER NOT NULL, createdAt REAL NOT NULL);
                        CREATE INDEX message_createdAt ON message (createdAt);
                        INSERT INTO message (topic, payload, retain, createdAt) VALUES ('t/a', x'61', 1, 1800000000);
                        INSERT INTO message (topic, payload, retain, createdAt) VALUES ('t/b', x'62', 0, 1800000001);
                        INSERT INTO message (topic, payload, retain, createdAt) VALUES ('t/c', x'63', 1, 1800000002);
                        DELETE FROM message WHERE topic = 't/c';
                        """)
            }
            try old.close()
            do {  // the outbox holds its file exclusively while open
                let outbox = try MQTTOutbox(directory: URL(fileURLWithPath: path), now: Self.start)
                try outbox.append(topic: "t/d", payload: [0x64], retain: false, at: Self.start.addingTimeInterval(3))
                let all = try outbox.messages(after: nil, limit: 10)
                #expect(all.map(\.topic) == ["t/a", "t/b", "t/d"])
                #expect(all.map(\.id) == all.map(\.id).sorted())
            }
            let indexes = try DatabaseQueue(path: file).read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'")
            }
            #expect(!indexes.contains("message_createdAt"))
        }
    }

    @Test func aCorruptFileIsMovedAsideWithOneLine() throws {
        try withTemporaryDirectory { path in
            let file = path + "/" + MQTTOutbox.fileName
            try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: file))
            let log = LogRecorder()
            let outbox = try MQTTOutbox(directory: URL(fileURLWithPath: path), logger: log.logger, now: Self.start)
            #expect(outbox.count == 0)
            try outbox.append(topic: "t", payload: [1], retain: false)
            let aside = try FileManager.default.contentsOfDirectory(atPath: path).filter {
                $0.hasPrefix(MQTTOutbox.fileName + ".corrupt-")
            }
            #expect(aside.count == 1)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: path + "/" + aside[0])) == Data(repeating: 0x41, count: 8192))
            #expect(log.events.count == 1)
            let warning = try #require(log.messages(at: .warning).first)
            #expect(warning.contains("is not a usable database (") && warning.contains("; moved it to "), "\(warning)")
            #expect(!warning.contains("untouched"), "\(warning)")
        }
    }
}
