import Foundation
import Testing

@testable import LocationState

#if canImport(Glibc)
    import Glibc
#endif

/// Issue #16: links, modes, restored fixes and full disks, against real files.
@Suite(.timeLimit(.minutes(1))) struct DataDirectoryHardeningTests {
    @Test func aTrackFileThatIsALinkIsRefusedAndItsTargetNeverWritten() throws {
        let directory = try TileFixtures.directory()
        let tracks = directory.appendingPathComponent("tracks")
        try FileManager.default.createDirectory(at: tracks, withIntermediateDirectories: true)
        let target = directory.appendingPathComponent("victim").path
        #expect(FileManager.default.createFile(atPath: target, contents: Data("precious\n".utf8)))
        let fix = TileFixtures.fix(52.5, 13.4, at: 0)
        let link = tracks.appendingPathComponent(TrackRecorder.dayFileName(fix.time!)).path
        #expect(symlink(target, link) == 0)
        let recorder = TrackRecorder(directory: tracks)
        recorder.record(fix)
        #expect(throws: LocationError.symbolicLink(path: link)) { try recorder.flush() }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "precious\n")
    }

    @Test(arguments: ["", "-wal", "-shm"])
    func aTileDatabaseLinkIsRefusedAndNothingIsCreatedAtItsTarget(_ suffix: String) throws {
        let directory = try TileFixtures.directory()
        let database = directory.appendingPathComponent(TileDatabase.fileName)
        let target = directory.appendingPathComponent("elsewhere").path
        #expect(symlink(target, database.path + suffix) == 0)
        #expect(throws: LocationError.symbolicLink(path: database.path + suffix)) {
            _ = try TileDatabase.open(at: database)
        }
        #expect(!FileManager.default.fileExists(atPath: target))
        if suffix.isEmpty {
            #expect(throws: LocationError.symbolicLink(path: database.path)) {
                _ = try TileDatabase.openReadOnly(at: database)
            }
        }
    }

    @Test func theTileDatabaseAndItsJournalFilesAre0600UnderUmask022() throws {
        let directory = try TileFixtures.directory()
        let url = directory.appendingPathComponent(TileDatabase.fileName)
        let previous = umask(0o022)
        defer { umask(previous) }
        let database = try TileDatabase.open(at: url)
        try database.add([
            TileRecord(
                tile: Tile(zoom: 14, x: 1, y: 2)!, firstSeen: TileFixtures.time(0), lastSeen: TileFixtures.time(1),
                visits: 1)
        ])
        // The -wal and -shm files exist while the database is open.
        for suffix in ["", "-wal", "-shm"] {
            #expect(FileManager.default.fileExists(atPath: url.path + suffix), "\(suffix)")
            #expect(try permissions(url.path + suffix) == 0o600, "tiles.sqlite\(suffix)")
        }
    }

    @Test func anExistingDatabaseOpenToOthersIsTightened() throws {
        let directory = try TileFixtures.directory()
        let url = directory.appendingPathComponent(TileDatabase.fileName)
        #expect(FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o644]))
        _ = try TileDatabase.open(at: url)
        #expect(try permissions(url.path) == 0o600)
    }

    @Test func anExistingDataDirectoryOpenToOthersIsTightenedTo0700() throws {
        let directory = try TileFixtures.directory().appendingPathComponent("data")
        try FileManager.default.createDirectory(
            atPath: directory.path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        #expect(try permissions(directory.path) == 0o755)
        try DataDirectory.create(directory)
        #expect(try permissions(directory.path) == 0o700)
        #expect(DataDirectory.privacyWarning(directory.path) == nil)
    }

    @Test func aSharedStickyDirectoryIsLeftAloneWithAWarning() throws {
        let directory = try TileFixtures.directory().appendingPathComponent("shared")
        try FileManager.default.createDirectory(atPath: directory.path, withIntermediateDirectories: true)
        #expect(chmod(directory.path, 0o1777) == 0)
        try DataDirectory.create(directory)
        #expect(try permissions(directory.path) & 0o7777 == 0o1777)
        #expect(DataDirectory.privacyWarning(directory.path)?.contains("mode 1777") == true)
    }
}

@Suite(.timeLimit(.minutes(1))) struct RestoredLastFixTests {
    private static let good =
        #"{"class":"TPV","mode":3,"time":"2026-11-20T10:00:00.000Z","lat":52.5,"lon":13.4,"source":"gpsd"}"#

    @Test(arguments: [
        "{}", #"{"class":"TPV","mode":3,"time":"2026-11-20T10:00:00.000Z","lat":999,"lon":13.4}"#,
        #"{"class":"TPV","mode":3,"time":"2026-11-20T10:00:00.000Z","lat":52.5,"lon":-181}"#,
        #"{"class":"TPV","mode":1,"time":"2026-11-20T10:00:00.000Z","lat":52.5,"lon":13.4}"#,
        #"{"class":"TPV","mode":3,"lat":52.5,"lon":13.4}"#,
        #"{"class":"TPV","mode":3,"time":"2026-11-20T10:00:00.000Z","lat":52.5,"lon":13.4,"eph":-4}"#,
    ])
    func anInvalidStoredFixIsMovedAsideNotRestored(_ json: String) throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/lastFix.json"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(json.utf8)))
            let log = LogRecorder()
            let store = try LastFixStore(directory: directory, logger: log.logger)
            #expect(store.lastFix == nil)
            #expect(!FileManager.default.fileExists(atPath: path))
            let aside = try FileManager.default.contentsOfDirectory(atPath: directory).filter {
                $0.hasPrefix("lastFix.corrupt-")
            }
            try #require(aside.count == 1)
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + aside[0])) == Data(json.utf8))
        }
    }

    @Test func aStoredFileLargerThan64KiBIsMovedAsideUnread() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/lastFix.json"
            let padded = Self.good.dropLast() + #","device":""# + String(repeating: "x", count: 70_000) + #""}"#
            #expect(FileManager.default.createFile(atPath: path, contents: Data(padded.utf8)))
            let store = try LastFixStore(directory: directory)
            #expect(store.lastFix == nil)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func aValidStoredFixIsRestored() throws {
        try withTemporaryDirectory { directory in
            #expect(FileManager.default.createFile(atPath: directory + "/lastFix.json", contents: Data(Self.good.utf8)))
            let store = try LastFixStore(directory: directory)
            #expect(store.lastFix?.lat == 52.5)
            #expect(store.lastFix?.source == .restored)
        }
    }

    @Test func aStoredFixFromTheFutureDoesNotBlockNewFixes() throws {
        try withTemporaryDirectory { directory in
            let now = Date()
            let future = Location(
                time: now.addingTimeInterval(86_400 * 365), mode: .threeD, lat: 1, lon: 2, source: .gpsd)
            try JSONEncoder().encode(future).write(to: URL(fileURLWithPath: directory + "/lastFix.json"))
            let store = try LastFixStore(directory: directory, now: { now })
            #expect(store.lastFix?.source == .restored)
            let live = Location(time: now, mode: .threeD, lat: 52.5, lon: 13.4, source: .gpsd)
            store.record(live)
            #expect(store.lastFix == live)
            #expect(store.rejected.isEmpty)
            try store.flush()
            let stored = try JSONDecoder().decode(
                Location.self, from: Data(contentsOf: URL(fileURLWithPath: directory + "/lastFix.json")))
            #expect(stored.lat == 52.5)
        }
    }

    @Test func aFailingWriteIsLoggedOncePerOutage() throws {
        let root = try TileFixtures.directory().path
        let directory = root + "/data"
        let log = LogRecorder()
        let store = try LastFixStore(
            directory: directory, configuration: .init(writeInterval: .zero), logger: log.logger,
            now: { TileFixtures.time(100) })
        // A real failing write: the directory the temporary file goes to is gone.
        try FileManager.default.removeItem(atPath: directory)
        // Each fix hands a write to the store's writer at once (interval zero): every
        // one used to fail and be logged.
        for second in 0..<50 { store.record(TileFixtures.fix(52.5, 13.4, at: Double(second))) }
        #expect(throws: LocationError.self) { try store.flush() }
        #expect(log.messages(at: .error).count == 1, "\(log.messages(at: .error))")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try store.flush()
        #expect(log.messages(at: .notice).contains { $0.contains("works again") })
        #expect(log.messages(at: .error).count == 1)
    }
}

@Suite(.timeLimit(.minutes(1))) struct TrackRecorderFailureTests {
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
