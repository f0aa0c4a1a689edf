import ArgumentParser

@main
struct Locationd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locationd",
        abstract: "A location service for Linux, built on gpsd.",
        subcommands: [RunCommand.self, LastCommand.self, ReplayCommand.self, TilesCommand.self, ReplaySampleTracksCommand.self]
    )
}
