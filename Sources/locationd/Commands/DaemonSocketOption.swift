import ArgumentParser

/// `--socket PATH`, shared by the commands that ask a running daemon (see ``DaemonSockets``).
struct DaemonSocketOption: ParsableArguments {
    @Option(
        name: .customLong("socket"),
        help: ArgumentHelp(
            "The daemon's control socket to ask (default: the system daemon's, \(DaemonSockets.systemPath), then control.sock in the data directory).",
            valueName: "path"))
    var path: String?
}
