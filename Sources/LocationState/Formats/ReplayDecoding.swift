import LocationState

/// A streaming decoder of one replay format: bytes in, chunk by chunk, fixes and no-fix reports out.
///
/// - Important: memory stays bounded whatever the input: a decoder keeps at most
///   one bounded line (or XML tag) between chunks.
public protocol ReplayDecoding: Sendable {
    /// Counts so far, in the format's terms.
    var statistics: ReplayStatistics { get }
    /// Decodes the next chunk; `emit` receives every report it completes, in order.
    mutating func decode(_ chunk: UnsafeRawBufferPointer, _ emit: (FixReport) -> Void)
    /// Ends the input: decodes what is left.
    mutating func finish(_ emit: (FixReport) -> Void)
}

/// The NMEA decoder as a replay decoder: its counts in the replay's terms.
package struct NMEAReplayDecoder: ReplayDecoding {
    private var decoder: NMEADecoder

    package init(source: FixSource, device: String?) {
        decoder = NMEADecoder(options: .init(source: source, device: device))
    }

    package var statistics: ReplayStatistics { ReplayStatistics(decoder.statistics) }

    package mutating func decode(_ chunk: UnsafeRawBufferPointer, _ emit: (FixReport) -> Void) {
        decoder.decode(chunk, emit)
    }

    package mutating func finish(_ emit: (FixReport) -> Void) {
        decoder.finish(emit)
    }
}

extension ReplayFormat {
    /// A fresh decoder for this format, stamping each fix with `source` and `device`.
    public func makeDecoder(source: FixSource = .replay, device: String? = nil) -> any ReplayDecoding {
        switch self {
        case .nmea: NMEAReplayDecoder(source: source, device: device)
        case .json: GPSDJSONDecoder(source: source, device: device)
        case .gpx: GPXDecoder(source: source, device: device)
        }
    }
}
