import ArgumentParser
import Dispatch

struct Locationd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locationd",
        abstract: "A location service for Linux, built on gpsd.",
        subcommands: [
            RunCommand.self, LastCommand.self, ReplayCommand.self, TilesCommand.self, RegionsCommand.self,
            ReplaySampleTracksCommand.self,
        ]
    )
}

/// The entry point: runs ``Locationd`` on the cooperative pool and parks the main thread until it ends.
///
/// Not an `async` main: that one hands the main thread to Dispatch, which ends it
/// with `pthread_exit`, and the forced unwind of its stack reads some 700 KB of
/// unwind tables that then stay resident for the daemon's lifetime. Nothing in
/// locationd runs on the main actor or the main queue.
@main
enum Main {
    static func main() {
        let finished = DispatchSemaphore(value: 0)
        // Detached: `main` is on the main actor, whose thread waits here.
        Task.detached {
            await Locationd.main()
            finished.signal()
        }
        finished.wait()
    }
}
