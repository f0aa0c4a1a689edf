/// What the NMEA decoder made of its input: sentences, fixes, and what it dropped and why.
public struct NMEAStatistics: Sendable, Hashable {
    /// Sentences with a good (or no) checksum, decoded or not.
    public var sentences = 0
    /// Fixes emitted (epochs with a 2D or 3D fix and a position).
    public var fixes = 0
    /// Sentences dropped because their checksum did not match.
    public var badChecksums = 0
    /// Well-formed sentences of a type locationd does not decode (proprietary, AIS, ...).
    public var unknownSentences = 0
    /// Sentences of a known type with too few fields.
    public var malformedSentences = 0
    /// Lines dropped: over-long, or not NMEA at all (binary noise).
    public var droppedLines = 0
    /// `#` comment lines.
    public var comments = 0

    public init() {}
}
