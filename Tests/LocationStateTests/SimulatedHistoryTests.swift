import Foundation
import LocationTestSupport
import Logging
import Testing

@testable import LocationProviders
@testable import LocationState
@testable import LocationStores
@testable import LocationTimeline

/// Simulated fixes never become history or motion: with `--source auto`, when gpsd goes
/// away while the device is parked, the simulator carries on from the real spot, and the
/// timeline, the motion, the tile log and the recorded track take none of its fixes.
@Suite(.timeLimit(.minutes(5)))
struct SimulatedHistoryTests {
    typealias T = MotionTrack

    /// Parked for 400 s (one real fix a second), then 600 s of the simulator driving off
    /// from the same spot, in the same time.
    static func parkedThenSimulated() -> [Location] {
        var fixes = MotionTrackerTests.still(0, 400, step: 1).map { fix in
            var fix = fix
            fix.source = .gpsd
            return fix
        }
        var route = SimulatedRoute(
            seed: 3, lat: T.origin.latitude, lon: T.origin.longitude, start: T.time(401))
        fixes += (0..<600).map { _ in route.next() }
        return fixes
    }

    @Test func theTimelineTakesNoSimulatedFix() throws {
        let directory = try TileFixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let recorder = TimelineRecorder(
            configuration: MotionConfiguration(),
            store: try TimelineStore(directory: directory, logger: Logger(label: "test")), logger: Logger(label: "test")
        )
        for fix in Self.parkedThenSimulated() { recorder.stateDidChange(StateChange(old: nil, new: fix)) }
        #expect(recorder.motion.value.name == "stopped")
        #expect(recorder.tracker.openTrip == nil && recorder.tracker.closingStay == nil)
        #expect(recorder.tracker.lastFixTime == T.time(400))
        try recorder.close()
        let stored = try TimelineStore.openReadOnly(at: directory.appendingPathComponent(TimelineStore.fileName))
            .entries(from: .distantPast, to: .distantFuture)
        #expect(stored.filter { if case .trip = $0 { true } else { false } }.isEmpty, "\(stored)")
    }

    @Test func theTileLogAndTheTrackTakeNoSimulatedFix() async throws {
        let directory = try TileFixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let sink = MemoryTileSink()
        let tiles = TileLogger(configuration: .init(zooms: [17]), sink: sink, logger: Logger(label: "test"))
        let tracks = TrackRecorder(directory: directory.appendingPathComponent("tracks"))
        for fix in Self.parkedThenSimulated() {
            tiles.stateDidChange(StateChange(old: nil, new: fix))
            tracks.stateDidChange(StateChange(old: nil, new: fix))
        }
        try await tiles.flush()
        try tracks.close()
        // Parked within a few metres: one tile at zoom 17, none along the simulated drive.
        #expect(sink.stored.count == 1, "\(sink.stored.keys)")
        let recorded = try tracks.files().map { try String(contentsOf: $0, encoding: .utf8) }.joined()
        #expect(
            recorded.components(separatedBy: "\r\n").filter { $0.contains("RMC") }.count == 401,
            "\(recorded.suffix(300))")
    }
}
