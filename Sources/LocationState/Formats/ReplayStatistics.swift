import LocationState

/// What a replay read, in words that fit every format: records read, fixes, and what was
/// skipped and why; ``summary`` says it in the format's own terms.
public struct ReplayStatistics: Sendable, Hashable {
    /// What one record of the format is called.
    public enum Record: Sendable, Hashable {
        /// An NMEA sentence (with a good checksum or none).
        case sentence
        /// A gpsd JSON object on a line of its own.
        case report
        /// A GPX track point (`trkpt`).
        case trackPoint
    }

    /// Why something read was not replayed.
    public enum Skip: Sendable, Hashable, CaseIterable {
        /// An NMEA sentence whose checksum did not match (not counted as a record).
        case badChecksum
        /// A well-formed record of a kind not replayed: an NMEA sentence type locationd
        /// does not decode, a gpsd report of another class than TPV.
        case unknown
        /// A record of a known kind that could not be read (too few fields, no valid position).
        case malformed
        /// A line that is not a record at all (over-long, binary noise; not counted as a record).
        case droppedLine
        /// A `#` comment line (not counted as a record, never shown).
        case comment
        /// A GPX waypoint (`wpt`): a place of interest, not a position of the device.
        case waypoint
        /// A GPX route point (`rtept`): a plan, not a position of the device.
        case routePoint
    }

    /// What the records are.
    public var record: Record
    /// Records read.
    public var records = 0
    /// Fixes replayed.
    public var fixes = 0
    /// What was not replayed, by reason.
    public var skipped: [Skip: Int] = [:]
    /// GPX times no fix can carry (before 1970, after 9999), dropped from their points,
    /// whose positions were kept.
    public var impossibleTimes = 0
    /// GPX times that are not ISO 8601 times (`yesterday`, `2025-05-01T10:00`, a day the
    /// calendar lacks), dropped from their points, whose positions were kept.
    public var unreadableTimes = 0
    /// GPX track points whose `fix` is `none`, the receiver's word that it had no fix:
    /// replayed as the loss of the fix, not as positions.
    public var pointsWithoutFix = 0
    /// Why reading stopped before the end of the input (a GPX file that is not
    /// well-formed XML: truncated, invalid UTF-8, an entity bomb); nil when it read it all.
    public var stopReason: String?
    /// What the validation before the state rejected and removed of these fixes (filled
    /// in by the replay's caller, from its ``LocationCoordinator``).
    public var validation = ValidationCounts()

    public init(record: Record) {
        self.record = record
    }

    /// The NMEA decoder's counts in the replay's terms.
    public init(_ nmea: NMEAStatistics) {
        record = .sentence
        records = nmea.sentences
        fixes = nmea.fixes
        skipped = [
            .badChecksum: nmea.badChecksums, .unknown: nmea.unknownSentences, .malformed: nmea.malformedSentences,
            .droppedLine: nmea.droppedLines, .comment: nmea.comments,
        ]
    }

    /// How many were skipped for `reason`.
    public subscript(skipped reason: Skip) -> Int {
        get { skipped[reason] ?? 0 }
        set { skipped[reason] = newValue }
    }

    /// Adds another run's counts to these (for `--loop`, or several files).
    public mutating func add(_ other: ReplayStatistics) {
        records += other.records
        fixes += other.fixes
        skipped.merge(other.skipped, uniquingKeysWith: +)
        impossibleTimes += other.impossibleTimes
        unreadableTimes += other.unreadableTimes
        pointsWithoutFix += other.pointsWithoutFix
        stopReason = stopReason ?? other.stopReason
        validation.add(other.validation)
    }

    /// One line, in the format's terms:
    /// - NMEA: `1200 sentences read, 300 fixes, 0 bad checksums, 4 unknown sentences, 0 lines dropped`
    ///   (`, 2 malformed` before the lines dropped when there are any);
    /// - gpsd JSON: `120 reports read, 60 fixes, 58 reports of other classes, 0 lines dropped`;
    /// - GPX: `567 track points read, 560 fixes, 7 without a fix, 3 waypoints and 12 route points skipped`
    ///   (points without a fix and `, 1 malformed` when there are any; skipped points only when there are any;
    ///   `, 184 impossible times dropped (positions kept)` when there are any);
    /// then what the validation rejected or removed, if anything
    /// (`1 impossible fix rejected (lat 1)`), and `; stopped early: REASON` when reading
    /// stopped at an error.
    public var summary: String {
        var parts = [count(records, record.name) + " read", count(fixes, "fix", "fixes")]
        switch record {
        case .sentence:
            parts.append(count(self[skipped: .badChecksum], "bad checksum"))
            parts.append(count(self[skipped: .unknown], "unknown sentence"))
        case .report:
            parts.append(count(self[skipped: .unknown], "report of other classes", "reports of other classes"))
        case .trackPoint:
            if pointsWithoutFix > 0 { parts.append("\(pointsWithoutFix) without a fix") }
        }
        if self[skipped: .malformed] > 0 { parts.append("\(self[skipped: .malformed]) malformed") }
        if record != .trackPoint { parts.append(count(self[skipped: .droppedLine], "line dropped", "lines dropped")) }
        let points = [
            (self[skipped: .waypoint], "waypoint"), (self[skipped: .routePoint], "route point"),
        ].filter { $0.0 > 0 }.map { count($0.0, $0.1) }
        if !points.isEmpty { parts.append(points.joined(separator: " and ") + " skipped") }
        if impossibleTimes > 0 { parts.append(count(impossibleTimes, "impossible time") + " dropped (positions kept)") }
        if unreadableTimes > 0 { parts.append(count(unreadableTimes, "unreadable time") + " dropped (positions kept)") }
        let validated = validation.summary
        if !validated.isEmpty { parts.append(validated) }
        let summary = parts.joined(separator: ", ")
        guard let stopReason else { return summary }
        return "\(summary); stopped early: \(stopReason)"
    }

    /// `1 fix`, `2 fixes`, `0 fixes`.
    private func count(_ number: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(number) \(number == 1 ? singular : plural ?? singular + "s")"
    }
}

extension ReplayStatistics.Record {
    /// The record's name, singular.
    package var name: String {
        switch self {
        case .sentence: "sentence"
        case .report: "report"
        case .trackPoint: "track point"
        }
    }
}
