import Foundation
import LocationFormats
import LocationState

extension TrackRecorder {
    /// The fixes recorded in NMEA files, in file order, decoded as `locationd replay` does.
    ///
    /// - Parameters:
    ///   - files: recorded files, usually ``files()``.
    ///   - interval: only the fixes whose time is inside it; `nil` for all.
    /// - Throws: ``LocationError/fileNotFound(path:)`` or ``LocationError/fileUnreadable(path:reason:)``.
    public static func fixes(in files: [URL], during interval: ClosedRange<Date>? = nil) throws(LocationError)
        -> [Location]
    {
        var fixes: [Location] = []
        try events(in: files, during: interval) { event in
            if case .fix(let location) = event { fixes.append(location) }
        }
        return fixes
    }

    /// A GPX 1.1 document with one track of the fixes recorded in `files` (during `interval` when given).
    ///
    /// A no-fix report between two fixes (the receiver lost its fix) ends the track segment; the next fix starts another, as `locationd replay --format gpx` does.
    public static func gpx(of files: [URL], during interval: ClosedRange<Date>? = nil) throws(LocationError) -> String {
        var writer = GPXTrackWriter()
        try events(in: files, during: interval) { writer.add($0) }
        return writer.finish()
    }

    /// The same document from the recorded files' bytes, one file after another (as a
    /// running daemon hands them over its control socket).
    public static func gpx(ofRecordings recordings: [Data], during interval: ClosedRange<Date>? = nil) -> String {
        var writer = GPXTrackWriter()
        for bytes in recordings { decode(bytes, during: interval) { writer.add($0) } }
        return writer.finish()
    }

    /// Decodes `files` in order and hands `body` each fix (inside `interval`, when given) and
    /// each no-fix report.
    private static func events(
        in files: [URL], during interval: ClosedRange<Date>?, _ body: (FixReport) -> Void
    ) throws(LocationError) {
        for file in files {
            guard FileManager.default.fileExists(atPath: file.path) else { throw .fileNotFound(path: file.path) }
            let bytes: Data
            do {
                bytes = try Data(contentsOf: file)
            } catch {
                throw .fileUnreadable(path: file.path, reason: error.localizedDescription)
            }
            decode(bytes, during: interval, body)
        }
    }

    /// Decodes one recorded file's bytes, with a decoder of its own.
    private static func decode(_ bytes: Data, during interval: ClosedRange<Date>?, _ body: (FixReport) -> Void) {
        var decoder = NMEADecoder()
        let keep = { (event: FixReport) in
            if case .fix(let location) = event, let interval {
                guard let time = location.time, interval.contains(time) else { return }
            }
            body(event)
        }
        decoder.decodeAll(bytes, keep)
        decoder.finish(keep)
    }

    /// One track of fixes, a segment ended by a no-fix report between two fixes.
    private struct GPXTrackWriter {
        var out = Array(Location.gpxHeader.utf8)
        var points = 0
        var interrupted = false

        mutating func add(_ event: FixReport) {
            switch event {
            case .fix(let fix):
                if interrupted, points > 0 { out.append(contentsOf: Location.gpxSegmentBreak.utf8) }
                interrupted = false
                points += 1
                fix.appendGPXTrackPoint(to: &out)
            case .noFix: interrupted = true
            }
        }

        mutating func finish() -> String {
            out.append(contentsOf: Location.gpxFooter.utf8)
            return String(decoding: out, as: UTF8.self)
        }
    }
}
