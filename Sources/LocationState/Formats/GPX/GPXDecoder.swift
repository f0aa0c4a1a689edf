import Foundation
import LocationState

/// Decodes a GPX document (1.1 or 1.0), streamed in chunks, into fixes: one per track
/// point (`trkpt`), in document order.
///
/// GPX is read as XML, with libxml2's push parser (SAX2), which takes the chunks as they
/// come and keeps only what it has not parsed yet, so memory stays bounded whatever the
/// file's size. What is read and how:
/// - Track points only. A waypoint (`wpt`) is a place of interest and a route point
///   (`rtept`) a plan, not positions of the device: they are skipped and counted
///   (``ReplayStatistics/Skip/waypoint``, ``ReplayStatistics/Skip/routePoint``).
/// - Each new track segment (`trkseg`) after one with points starts with a no-fix report
///   (`.noFix(nil)`), the replay's way of saying the track was interrupted: the next
///   fix is not joined to the one before.
/// - Of a track point: `lat`/`lon`, `ele` (metres, taken as above mean sea level, as GPX
///   defines it), `time`, `fix`, `sat`, `hdop`, `vdop`; `speed` (m/s) and `course`
///   (degrees true) wherever they are inside the point, whatever their namespace: GPX
///   1.0's own elements, Garmin's TrackPointExtension v1/v2 (`gpxtpx:speed`,
///   `gpxtpx:course`), and the unnamespaced forms other programs put in `extensions`.
///   A point without a valid position is malformed; `fix` `none` makes it a no-fix report.
///
/// - Important: no DTD or external entity is ever loaded, and no network is used.
///   Entities declared in the document itself are expanded within libxml2's bound on
///   entity amplification (a billion laughs ends the document at once); predefined
///   entities, character references, CDATA and comments are read as XML defines them.
///   Elements nest at most 256 deep (checked in `GPXParser`: libxml2's push parser has
///   no limit of its own). A document that is not well-formed (truncated, invalid
///   UTF-8, an entity bomb) ends the replay at the error, keeping the fixes before it,
///   and says why in ``ReplayStatistics/stopReason``.
///
/// Copies of a decoder share one parser; use one copy at a time (as every
/// ``ReplayDecoding`` is used, by one replay loop).
public struct GPXDecoder: ReplayDecoding {
    /// The parser, behind a mutex that makes the decoder `Sendable`: the parser and its
    /// libxml2 context are reached only inside `withLock`.
    private final class Shared: Sendable {
        let parser: Locked<GPXParser>

        init(_ parser: sending GPXParser) {
            self.parser = Locked(parser)
        }
    }

    /// Bytes handed to libxml2 at a time: the fixes they complete are emitted before the next.
    package static let sliceSize = 1 << 16

    private let shared: Shared

    /// A decoder that stamps each fix with `source` and `device`.
    public init(source: FixSource = .replay, device: String? = nil) {
        shared = Shared(GPXParser(source: source, device: device))
    }

    public var statistics: ReplayStatistics { shared.parser.withLock { $0.statistics } }

    public mutating func decode(_ chunk: UnsafeRawBufferPointer, _ emit: (FixReport) -> Void) {
        var offset = 0
        while offset < chunk.count {
            let end = min(offset + GPXDecoder.sliceSize, chunk.count)
            // A copy, so that no pointer of the caller's enters the mutex.
            let slice = Array(UnsafeRawBufferPointer(rebasing: chunk[offset..<end]))
            let events = shared.parser.withLock { parser in
                slice.withUnsafeBytes { parser.parse($0, terminate: false) }
            }
            for event in events { emit(event) }
            offset = end
        }
    }

    public mutating func finish(_ emit: (FixReport) -> Void) {
        let events = shared.parser.withLock { $0.parse(UnsafeRawBufferPointer(start: nil, count: 0), terminate: true) }
        for event in events { emit(event) }
    }
}
