import ArgumentParser
import Foundation
import LocationState

/// `--timezone NAME`: the zone days are counted in, shared by the daemon and the commands
/// that read days (`timeline`, `export`, `tiles --stats`).
struct TimeZoneOption: ParsableArguments {
    @Option(
        name: .customLong("timezone"),
        help: ArgumentHelp(
            "The time zone days are counted in, an IANA name such as Europe/Zurich (default: the system's, from TZ, then /etc/localtime).",
            valueName: "name"))
    var name: String?

    /// The zone as the daemon would take it: this flag, else `LOCATIOND_TIMEZONE`, else the
    /// configuration file's `timezone`, else the system's.
    ///
    /// - Throws: `usage` for a name that is not a zone, or a configuration file the daemon
    ///   would refuse.
    func days() throws(LocationError) -> LocalDays {
        var source = DaemonConfigurationSource()
        source.flags = name.map { [("timezone", $0)] } ?? []
        return try source.resolve().days
    }
}
