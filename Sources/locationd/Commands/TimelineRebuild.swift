import Foundation
import LocationProviders
import LocationState
import LocationTimeline
import Logging

/// `locationd timeline --rebuild`: the recorded tracks, day by day, through the motion
/// tracker, replacing the timeline in one transaction.
enum TimelineRebuild {
    /// Rebuilds the timeline in `directory`; returns the summary line's text.
    static func run(directory: URL, configuration: MotionConfiguration) async throws(LocationError) -> String {
        let logger = Logger(label: "locationd.timeline")
        // Never beside a daemon writing the same timeline.
        let lock = try DaemonLock(directory: directory.path, logger: logger)
        defer { withExtendedLifetime(lock) {} }
        let tracks = directory.appendingPathComponent(DataDirectory.Name.tracks)
        let days = TrackExport.recordedDays(in: tracks).filter { day, _ in
            isRecordedFile(tracks.appendingPathComponent(day + ".nmea"))
        }
        var tracker = MotionTracker(configuration: configuration)
        var events: [TimelineEvent] = []
        for (day, _) in days {
            let provider = ReplayProvider(
                path: tracks.appendingPathComponent(day + ".nmea").path, options: .init(format: .nmea, speed: nil))
            var fixes: [Location] = []
            do {
                _ = try await provider.replay { event in
                    if case .fix(let fix) = event { fixes.append(fix) }
                }
            } catch let error as LocationError {
                throw error
            } catch {
                throw .internalError("reading \(day).nmea stopped: \(error)")
            }
            for fix in fixes { events += tracker.ingest(fix) }
        }
        let store = try TimelineStore(directory: directory, logger: logger)
        let closed = events.filter { if case .motion = $0 { false } else { true } }.map {
            $0.named(by: PlaceNamesFile.naming)
        }
        try store.replaceAll(with: closed, tracker: tracker)
        let stays = closed.filter { if case .stayClosed = $0 { true } else { false } }.count
        let trips = closed.filter { if case .tripClosed = $0 { true } else { false } }.count
        return "\(store.url.path): rebuilt from \(days.count) recorded days: \(stays) stays, \(trips) trips"
    }

    /// Whether `file` is a regular file the daemon could have recorded: anything else in
    /// `tracks/` (a symbolic link, to /etc/passwd or anywhere, a directory, a device) is
    /// no recorded day, left out with one line on stderr.
    private static func isRecordedFile(_ file: URL) -> Bool {
        var status = stat()
        guard lstat(file.path, &status) == 0 else { return false }
        switch status.st_mode & S_IFMT {
        case S_IFREG:
            return true
        case S_IFLNK:
            StandardError.line("locationd: skipping \(file.path): a symbolic link, not a recorded track")
        default:
            StandardError.line("locationd: skipping \(file.path): not a regular file, not a recorded track")
        }
        return false
    }
}
