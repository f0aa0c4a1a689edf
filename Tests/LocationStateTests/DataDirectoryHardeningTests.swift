import Foundation
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationStores

#if canImport(Glibc)
    import Glibc
#endif

/// The data directory against links and loose modes, with real files.
@Suite(.timeLimit(.minutes(10))) struct DataDirectoryHardeningTests {
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
