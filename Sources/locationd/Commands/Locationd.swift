import ArgumentParser
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

struct Locationd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locationd",
        abstract: "A location service for Linux, built on gpsd.",
        version: LocationdVersion.current,
        subcommands: [
            RunCommand.self, LastCommand.self, ReplayCommand.self, TilesCommand.self, ExportCommand.self,
            RegionsCommand.self, TimelineCommand.self, OdometerCommand.self, StatsCommand.self, PlacesCommand.self,
            PageCommand.self,
            UplinksCommand.self,
        ]
    )
}

extension Locationd {
    /// Why a `--version` request is refused, or nil: the argument parser would print the
    /// version for `--version=json`, `--version --json` or `--version json` and ignore the
    /// rest, which a script asking for a format it cannot have should hear about. A
    /// command name beside it (`locationd last --version`) is fine.
    static func versionRefusal(_ arguments: ArraySlice<String>) -> String? {
        guard let request = arguments.first(where: { $0 == "--version" || $0.hasPrefix("--version=") }) else {
            return nil
        }
        if request != "--version" {
            return
                "--version takes no value (it prints the version alone, \(LocationdVersion.current)); not '\(request)'"
        }
        let commands = Set(configuration.subcommands.compactMap { $0.configuration.commandName })
        if let other = arguments.first(where: { $0 != request && ($0.hasPrefix("-") || !commands.contains($0)) }) {
            return "--version prints the version alone, \(LocationdVersion.current), in one format; not with '\(other)'"
        }
        return nil
    }
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
        // A process inherits its parent's blocked signals: one started from a Dispatch
        // worker thread (Foundation's Process does that) would never see SIGTERM, SIGINT
        // or SIGHUP. Unblocked here, before any other thread exists, every thread made
        // later inherits the clean mask, as systemd would give it.
        var signals = sigset_t()
        sigemptyset(&signals)
        for number in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&signals, number) }
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        // A write past a file size limit (`ulimit -f`, systemd's LimitFSIZE=) then fails
        // with EFBIG, which the stores report like a full disk, instead of killing the
        // daemon mid-write.
        signal(SIGXFSZ, SIG_IGN)
        if let refusal = Locationd.versionRefusal(CommandLine.arguments.dropFirst()) {
            StandardError.line("locationd: \(refusal)")
            exit(ExitStatus.usage)
        }
        let finished = DispatchSemaphore(value: 0)
        // Detached: `main` is on the main actor, whose thread waits here.
        Task.detached {
            await Locationd.main()
            finished.signal()
        }
        finished.wait()
    }
}
