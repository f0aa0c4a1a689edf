import Foundation

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
        for file in files {
            guard FileManager.default.fileExists(atPath: file.path) else { throw .fileNotFound(path: file.path) }
            let bytes: Data
            do {
                bytes = try Data(contentsOf: file)
            } catch {
                throw .fileUnreadable(path: file.path, reason: error.localizedDescription)
            }
            var decoder = NMEADecoder()
            let keep = { (event: ProviderEvent) in
                guard case .fix(let location) = event else { return }
                if let interval {
                    guard let time = location.time, interval.contains(time) else { return }
                }
                fixes.append(location)
            }
            decoder.decodeAll(bytes, keep)
            decoder.finish(keep)
        }
        return fixes
    }

    /// A GPX 1.1 document with one track of the fixes recorded in `files` (during `interval` when given).
    public static func gpx(of files: [URL], during interval: ClosedRange<Date>? = nil) throws(LocationError) -> String {
        var out = Array(Location.gpxHeader.utf8)
        for fix in try fixes(in: files, during: interval) { fix.appendGPXTrackPoint(to: &out) }
        out.append(contentsOf: Location.gpxFooter.utf8)
        return String(decoding: out, as: UTF8.self)
    }
}
