import ArgumentParser
import Foundation
import LocationState

/// Where and how the commands that read the timeline (`odometer`, `places`, `stats`) read
/// it: `--data-dir`, `--socket` and `--timezone`, as `timeline` takes them.
struct TimelineReading: ParsableArguments {
    @OptionGroup var dataDirectory: DataDirectoryOption
    @OptionGroup var socket: DaemonSocketOption
    @OptionGroup var timeZone: TimeZoneOption

    /// The stays and trips of a range, from the daemon or the file.
    var source: TimelineSource { TimelineSource(socket: socket.path, dataDirectory: dataDirectory) }
}
