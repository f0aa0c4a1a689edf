import ArgumentParser
import Foundation
import LocationState

/// `--data-dir DIR`, shared by the commands that read or write locationd's state.
struct DataDirectoryOption: ParsableArguments {
    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Directory of locationd's state (tile log, last fix, tracks).",
            discussion:
                "Default: /var/lib/locationd for root, else $XDG_STATE_HOME/locationd, else ~/.local/state/locationd.",
            valueName: "dir"))
    var path: String?

    /// The directory: `--data-dir` when given, else ``DataDirectory/defaultURL(environment:isRoot:)``.
    var url: URL {
        path.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? DataDirectory.defaultURL()
    }
}
