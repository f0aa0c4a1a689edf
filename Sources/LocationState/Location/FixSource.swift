/// Where a fix came from. Encoded as the lower-case names in JSON (`"source":"gpsd"`).
public enum FixSource: String, Sendable, Codable, CaseIterable {
    /// A live receiver read through gpsd.
    case gpsd
    /// A recorded track played back (`locationd replay`, `--source replay`).
    case replay
    /// The synthetic route of the simulator: never a real position.
    case simulated
    /// Loaded from the persisted store at start: a past fix, not a current one.
    case restored
}
