/// A streaming decoder of one replay format: bytes in, chunk by chunk, events out.
///
/// - Important: memory stays bounded whatever the input: a decoder keeps at most
///   one bounded line (or XML tag) between chunks.
public protocol ReplayDecoding: Sendable {
    /// Counts so far; for JSON and GPX a record (a line, a point) counts as a sentence.
    var statistics: NMEAStatistics { get }
    /// Decodes the next chunk; `emit` receives every event it completes, in order.
    mutating func decode(_ chunk: UnsafeRawBufferPointer, _ emit: (ProviderEvent) -> Void)
    /// Ends the input: decodes what is left.
    mutating func finish(_ emit: (ProviderEvent) -> Void)
}

extension NMEADecoder: ReplayDecoding {}

extension ReplayFormat {
    /// A fresh decoder for this format, stamping fixes with `options`.
    public func makeDecoder(options: NMEAEpochAssembler.Options) -> any ReplayDecoding {
        switch self {
        case .nmea: NMEADecoder(options: options)
        case .json: GPSDJSONDecoder(options: options)
        case .gpx: GPXDecoder(options: options)
        }
    }
}
