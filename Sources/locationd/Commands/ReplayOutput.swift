import Foundation
import LocationFormats
import LocationProviders
import LocationRegions
import LocationState
import LocationStores
import LocationTimeline

/// How `locationd replay` prints fixes on stdout.
enum ReplayOutputFormat: String, CaseIterable {
    /// One human-readable line per fix.
    case text
    /// One gpsd-style TPV object per line.
    case json
    /// A GeoJSON FeatureCollection of Point features.
    case geojson
    /// A GPX 1.1 document with one track, a new segment after each interruption (no-fix report).
    case gpx
}

/// Prints fixes to stdout in one format, through a 64 KiB buffer written with `write(2)`,
/// or fix by fix when `flushingEachFix` (a paced replay, or stdout on a terminal: each
/// fix shows when it is due, and an interrupt loses nothing).
///
/// Thread-safe: the buffer lives behind a `Locked`, so fixes may arrive from any
/// executor; each fix is written whole. Call ``finish()`` once at the end, also when
/// interrupted: it writes the document's closing part (GeoJSON, GPX) and flushes;
/// fixes printed after it are dropped, so the document stays whole.
final class ReplayOutput: Sendable {
    private struct State {
        var buffer: [UInt8] = []
        var count = 0
        var started = false
        var finished = false
        /// A no-fix report came after the last fix printed: GPX starts a new segment.
        var interrupted = false
        /// The state of the last status change (`waiting` at the start).
        var status = "waiting"
    }

    /// Bytes buffered before a write to stdout.
    static let bufferSize = 1 << 16

    let format: ReplayOutputFormat
    /// Whether each fix is written as soon as it is printed.
    let flushingEachFix: Bool
    private let state = Locked(State())

    init(format: ReplayOutputFormat, flushingEachFix: Bool = false) {
        self.format = format
        self.flushingEachFix = flushingEachFix
        state.withLock { $0.buffer.reserveCapacity(ReplayOutput.bufferSize + 1024) }
    }

    /// Prints one fix.
    func print(_ location: Location) {
        state.withLock { state in
            guard !state.finished else { return }
            if !state.started {
                state.started = true
                header(&state.buffer)
            }
            switch format {
            case .json:
                location.appendJSON(to: &state.buffer)
                state.buffer.append(10)
            case .text: location.appendText(to: &state.buffer)
            case .geojson:
                if state.count > 0 { state.buffer.append(UInt8(ascii: ",")) }
                state.buffer.append(10)
                location.appendGeoJSONFeature(to: &state.buffer)
            case .gpx:
                if state.interrupted, state.count > 0 {
                    state.buffer.append(contentsOf: Location.gpxSegmentBreak.utf8)
                }
                location.appendGPXTrackPoint(to: &state.buffer)
            }
            state.interrupted = false
            state.count += 1
            if flushingEachFix || state.buffer.count >= ReplayOutput.bufferSize {
                ReplayOutput.write(state.buffer)
                state.buffer.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Prints a region event after the fix that made it: a REGION object in `json`,
    /// a line in `text`; the document formats (`geojson`, `gpx`) hold fixes only.
    func print(_ event: RegionEvent) {
        state.withLock { state in
            switch format {
            case .json: event.appendJSON(to: &state.buffer)
            case .text: state.buffer.append(contentsOf: event.text.utf8)
            case .geojson, .gpx: return
            }
            state.buffer.append(10)
            if flushingEachFix {
                ReplayOutput.write(state.buffer)
                state.buffer.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Prints a closed stay or trip after the fix that closed it: a STAY or TRIP object in
    /// `json`, a line in `text`; the document formats (`geojson`, `gpx`) hold fixes only.
    func print(_ entry: TimelineEntry) {
        printTimeline(json: entry.jsonString, text: entry.text)
    }

    /// Prints the withdrawal of a stay a gap dropped, after the fix that dropped it: a DROP
    /// object in `json`, a line in `text`.
    func print(dropped stay: Stay) {
        var json: [UInt8] = []
        stay.appendDropJSON(to: &json)
        printTimeline(json: String(decoding: json, as: UTF8.self), text: stay.dropText)
    }

    private func printTimeline(json: String, text: String) {
        state.withLock { state in
            guard !state.finished else { return }
            switch format {
            case .json: state.buffer.append(contentsOf: json.utf8)
            case .text: state.buffer.append(contentsOf: text.utf8)
            case .geojson, .gpx: return
            }
            state.buffer.append(10)
            if flushingEachFix {
                ReplayOutput.write(state.buffer)
                state.buffer.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Prints a change of the status after the fix before it: a STATUS object in `json`, a
    /// line in `text`; the document formats (`geojson`, `gpx`) hold fixes only.
    ///
    /// Every replay starts `waiting` and turns `live` at its first fix: those two print
    /// nothing (the fixes say it). Every later change does: `stale` after a gap longer
    /// than the freshness timeout, `nofix`, `live` again.
    /// A status before the track's first time has no time (nil), as a fix without one.
    func print(_ status: ProviderStatus, at time: Date?) {
        state.withLock { state in
            let previous = state.status
            state.status = status.name
            guard !state.finished, status.name != "waiting", !(status.isLive && previous == "waiting") else { return }
            switch format {
            case .json: status.appendJSON(at: time, to: &state.buffer)
            case .text: state.buffer.append(contentsOf: status.text(at: time).utf8)
            case .geojson, .gpx: return
            }
            state.buffer.append(10)
            if flushingEachFix {
                ReplayOutput.write(state.buffer)
                state.buffer.removeAll(keepingCapacity: true)
            }
        }
    }

    /// Notes that the location became unknown (no fix, stale): in GPX, the next fix starts a new track segment.
    func interrupt() {
        state.withLock { $0.interrupted = true }
    }

    /// Closes the document and flushes what is buffered.
    func finish() {
        state.withLock { state in
            guard !state.finished else { return }
            state.finished = true
            if !state.started {
                state.started = true
                header(&state.buffer)
            }
            switch format {
            case .geojson: state.buffer.append(contentsOf: Location.geoJSONFooter.utf8)
            case .gpx: state.buffer.append(contentsOf: Location.gpxFooter.utf8)
            case .json, .text: break
            }
            ReplayOutput.write(state.buffer)
            state.buffer.removeAll()
        }
    }

    private func header(_ out: inout [UInt8]) {
        switch format {
        case .geojson: out.append(contentsOf: Location.geoJSONHeader.utf8)
        case .gpx: out.append(contentsOf: Location.gpxHeader.utf8)
        case .json, .text: break
        }
    }

    /// Writes all of `bytes` to stdout; gives up silently when stdout is closed.
    private static func write(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { SystemCall.writeAll(1, $0) }
    }
}
