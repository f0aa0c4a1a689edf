import Foundation
import LocationState

/// Decodes gpsd JSON reports (`gpspipe -w` output), one object per line, into fixes.
///
/// TPV objects become fixes (mode 2 or 3 with a position) or `.noFix` (mode 0 or 1);
/// the other classes (VERSION, DEVICES, WATCH, SKY, locationd's own STATUS, ...) are
/// skipped as unknown, lines that are not JSON as malformed. gpsd may report several TPVs for one epoch as it
/// merges sentences: they are folded into one fix per time, each field the latest report's
/// that has one (``Location/completing(_:)``, as the daemon does with live reports).
public struct GPSDJSONDecoder: ReplayDecoding {
    /// The longest line kept, in bytes (gpsd's SKY reports can be a few kilobytes).
    public static let maximumLineLength = 65_536

    public private(set) var statistics = ReplayStatistics(record: .report)
    private let source: FixSource
    private let device: String?
    private var splitter = ReplayLineSplitter(maximumLength: GPSDJSONDecoder.maximumLineLength)
    private var held: Location?

    /// A decoder that stamps each fix with `source`, and with `device` when the report names none.
    public init(source: FixSource = .replay, device: String? = nil) {
        self.source = source
        self.device = device
    }

    private struct Probe: Decodable {
        let `class`: String?
    }

    public mutating func decode(_ chunk: UnsafeRawBufferPointer, _ emit: (FixReport) -> Void) {
        var lines = splitter
        splitter = ReplayLineSplitter(maximumLength: GPSDJSONDecoder.maximumLineLength)
        lines.split(chunk) { line($0, emit) }
        splitter = lines
    }

    public mutating func finish(_ emit: (FixReport) -> Void) {
        var lines = splitter
        splitter = ReplayLineSplitter(maximumLength: GPSDJSONDecoder.maximumLineLength)
        lines.finish { line($0, emit) }
        statistics[skipped: .droppedLine] += lines.droppedLines
        release(emit)
    }

    private mutating func line(_ bytes: UnsafeBufferPointer<UInt8>, _ emit: (FixReport) -> Void) {
        guard let first = bytes.first(where: { $0 != 32 && $0 != 9 }) else { return }
        if first == UInt8(ascii: "#") {
            statistics[skipped: .comment] += 1
            return
        }
        guard first == UInt8(ascii: "{") else {
            statistics[skipped: .droppedLine] += 1
            return
        }
        statistics.records += 1
        let data = Data(buffer: bytes)
        let decoder = JSONDecoder()
        guard let probe = try? decoder.decode(Probe.self, from: data) else {
            statistics[skipped: .malformed] += 1
            return
        }
        guard probe.class == "TPV" else {
            statistics[skipped: .unknown] += 1
            return
        }
        guard var location = try? decoder.decode(Location.self, from: data) else {
            statistics[skipped: .malformed] += 1
            return
        }
        location.source = source
        location.device = location.device ?? device
        guard location.hasPosition else {
            if location.mode == .noFix {
                release(emit)
                emit(.noFix(location.time))
            }
            return
        }
        if let previous = held, previous.time != nil, previous.time == location.time {
            held = location.completing(previous)
            return
        }
        release(emit)
        held = location
    }

    private mutating func release(_ emit: (FixReport) -> Void) {
        guard let location = held else { return }
        held = nil
        statistics.fixes += 1
        emit(.fix(location))
    }
}
