import ArgumentParser
import LocationState
import LocationTimeline

/// The thresholds' flags, for `run`, `replay --timeline` and `timeline --rebuild`: named
/// and checked as the daemon's configuration keys.
struct TimelineThresholds: ParsableArguments {
    // Unconditional: a negative value is refused by the check, not taken for a flag.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Metres from a stay's first fix that still belong to it (default 100).", valueName: "m"))
    var stayDistance: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds the device must stay to make a stay (default 300).", valueName: "s"))
    var stayDuration: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Seconds without a fix that end a stay candidate (default 900).", valueName: "s"))
    var stayGap: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Metres per second beyond which a fix is ignored as a jump (default 100).", valueName: "m/s")
    )
    var maxSpeed: String?

    /// Whether any threshold was given.
    var given: Bool { !settings.isEmpty }

    /// The thresholds given, as configuration settings (key, value).
    var settings: [(key: String, value: String)] {
        let flags = [
            ("stay-distance", stayDistance), ("stay-duration", stayDuration), ("stay-gap", stayGap),
            ("max-speed", maxSpeed),
        ]
        return flags.compactMap { key, value in value.map { (key, $0) } }
    }

    /// The thresholds, each checked as the daemon checks its key.
    func configuration() throws(LocationError) -> MotionConfiguration {
        var configuration = MotionConfiguration()
        for (key, value) in settings {
            _ = try configuration.apply(key: key, value: value, origin: "--\(key)")
        }
        return configuration
    }
}
