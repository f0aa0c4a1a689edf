import ArgumentParser
import Foundation
import LocationFormats
import LocationProviders
import LocationRegions
import LocationState

#if canImport(Glibc)
    import Glibc
#endif

/// `locationd replay FILE...`: runs recorded tracks through the fix pipeline, one after the
/// other as one track, and prints the fixes.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay recorded tracks (NMEA, gpsd JSON or GPX) and print their fixes.",
        discussion: """
            Several files play one after the other, in the order given, as one track (one timeline \
            across them), each file's format detected on its own and each file after the first \
            starting a new segment. \
            Fixes go through the daemon's coordinator, on a clock that follows the track's own time, \
            and are printed on stdout with the status changes the daemon would have shown \
            (stale after a gap longer than --freshness-timeout, no fix, live again); \
            a summary of each file in the format's terms (sentences, track points or reports read, fixes, \
            what was skipped and why) goes to stderr. \
            Exit status 0 when the files were read, whatever they contained; 66 when one cannot be read \
            (checked for every file before the first is replayed); \
            73 when --data-dir cannot be written (a store that is a symbolic link, a full disk); \
            130 (SIGINT) or 143 (SIGTERM) when interrupted, after printing and storing every fix replayed \
            so far and closing the GeoJSON or GPX document. A paced replay (not --speed max) and output \
            to a terminal are written fix by fix.
            """
    )

    @Argument(help: ArgumentHelp("The track files to replay, one after the other as one track.", valueName: "file"))
    var files: [String]

    @Option(help: "The files' format: nmea, json (gpspipe -w) or gpx (default: detected from each one's content).")
    var input: ReplayInputFormat?

    @Option(
        help: """
            Playback speed: 1 plays in real time, 10 ten times faster, max as fast as possible \
            (a number from \(ReplaySpeed.range.lowerBound) to \(Int(ReplaySpeed.range.upperBound)), or max).
            """)
    var speed: ReplaySpeed = .factor(1)

    @Flag(help: "Start over at the end of the file, until interrupted.")
    var loop = false

    @Option(
        help: """
            How to print fixes: text, json (one gpsd TPV object per line, and a STATUS object for \
            each change of the status after the first fix), geojson or gpx.
            """)
    var format: ReplayOutputFormat = .text

    @Option(
        name: .customLong("freshness-timeout"),
        help: ArgumentHelp(
            "Seconds of track time a fix stays current without a newer one, as in the daemon (default 5).",
            valueName: "seconds"))
    var freshnessTimeout: Double?

    @Option(
        name: .customLong("data-dir"),
        help: ArgumentHelp(
            "Also run the daemon's listeners on the fixes: fill the tile log and the last fix in this directory.",
            valueName: "dir"))
    var dataDirectory: String?

    @Option(help: ArgumentHelp("Tile zoom levels to log with --data-dir (default 14,17).", valueName: "list"))
    var zooms: String?

    @Option(
        help: ArgumentHelp(
            "Also print the enter and leave events of the regions in this GeoJSON file, after the fix that made each.",
            valueName: "file"))
    var regions: String?

    @Option(
        name: .customLong("region-dwell"),
        help: ArgumentHelp("Seconds inside a region before an enter counts (default 0).", valueName: "seconds"))
    var regionDwell: Double?

    @Flag(
        help: """
            Also print each closed stay and trip (a STAY or TRIP object in json, a line in text), after \
            the fix that closed it; the thresholds are the daemon's keys of the same names.
            """)
    var timeline = false

    @OptionGroup var thresholds: TimelineThresholds

    func run() async throws {
        let output = ReplayOutput(format: format, flushingEachFix: speed != .max || isatty(1) == 1)
        let progress = ReplayProgress.forTerminal()
        let options = ReplayProvider.Options(format: input?.format, speed: speed.factor, loop: loop)
        var report: (@Sendable (Int64, Int64) -> Void)?
        if let progress { report = { done, total in progress.update(done, total) } }
        let provider = ReplayProvider(paths: files, options: options, progress: report)
        let listeners: ReplayHistory?
        let monitor: RegionMonitor?
        let motion: ReplayTimeline?
        let timeout: Duration
        do {
            // Checked as the daemon's setting is (same range, same message).
            var configuration = DaemonConfiguration(dataDirectory: "")
            if let freshnessTimeout {
                try configuration.apply(
                    key: "freshness-timeout", value: "\(freshnessTimeout)", origin: "--freshness-timeout")
            }
            timeout = .milliseconds(Int64(configuration.freshnessTimeoutSeconds * 1000))
            let motionConfiguration = try thresholds.configuration()
            // A threshold asks for the timeline as --timeline does.
            let regionSet = try regions.map { path throws(LocationError) in try RegionSet.load(geoJSONFile: path) }
            motion =
                timeline || thresholds.given
                ? ReplayTimeline(configuration: motionConfiguration, naming: ReplayTimeline.naming(regions: regionSet))
                : nil
            monitor = try regionSet.map { regionSet throws(LocationError) in
                var configuration = RegionConfiguration()
                if let regionDwell {
                    _ = try configuration.apply(key: "region-dwell", value: "\(regionDwell)", origin: "--region-dwell")
                }
                return RegionMonitor(regions: regionSet, options: configuration.options, store: nil)
            }
            listeners = try dataDirectory.map { directory throws(LocationError) in
                let zooms = try zooms.map { text throws(LocationError) in
                    try DaemonConfiguration.parseZooms(text, origin: "--zooms")
                }
                return try ReplayHistory(directory: directory, zooms: zooms ?? [14, 17])
            }
        } catch {
            throw error.exit()
        }
        // Unpaced, events reach the coordinator in batches (a paced fix must show at once).
        let pipeline = ReplayPipeline(batchSize: speed == .max ? 1024 : 1, freshnessTimeout: timeout) { change in
            switch change {
            case .location(let location):
                listeners?.record(location)
                if let fix = location { output.print(fix) } else { output.interrupt() }
                if let fix = location { motion?.record(fix, to: output) }
                if let monitor {
                    for event in monitor.update(with: location) { output.print(event) }
                }
            case .status(let status, let time):
                output.print(status, at: time)
            }
        }
        // SIGINT, SIGTERM or SIGHUP stops the replay; what was replayed is still printed and stored.
        let signals = ProcessSignals()
        let replay = Task {
            var validation = [ValidationCounts](repeating: ValidationCounts(), count: files.count)
            var counted = ValidationCounts()
            var statistics = try await provider.replayFiles({ pipeline.send($0) }) { index in
                // Each file's own share of what the validation found: the counts by its end.
                pipeline.drain()
                let counts = pipeline.coordinator.validationCounts
                validation[index].add(counts.since(counted))
                counted = counts
            }
            for index in statistics.indices { statistics[index].validation = validation[index] }
            return statistics
        }
        let interruption = Locked<Int32?>(nil)
        Task.detached {
            for await number in signals.received {
                interruption.withLock { $0 = number }
                replay.cancel()
                return
            }
        }
        let result = await replay.result
        pipeline.drain()
        let storeFailure = await listeners?.finish()
        progress?.clear()
        let interrupted = interruption.withLock { $0 }
        if interrupted == nil, case .failure(let error as LocationError) = result { throw error.exit() }
        let timelineSummary = motion?.finish(to: output)
        output.finish()
        // What is said of the whole run names the one file, or how many.
        let subject = files.count == 1 ? files[0] : "\(files.count) files"
        if let timelineSummary { StandardError.line("locationd: \(subject): \(timelineSummary)") }
        if let storeFailure { throw ExitCode(ExitStatus.code(for: storeFailure)) }
        if let interrupted {
            StandardError.line("locationd: \(subject): interrupted by \(ProcessSignals.name(interrupted))")
            throw ExitCode(ExitStatus.interrupted(by: interrupted))
        }
        switch result {
        case .success(let statistics):
            for (file, statistics) in zip(files, statistics) {
                StandardError.line("locationd: \(file): \(statistics.summary)")
            }
        case .failure(let error):
            throw LocationError.internalError("replay stopped: \(error)").exit()
        }
    }
}

/// `--input`: the replayed file's format.
enum ReplayInputFormat: String, CaseIterable, ExpressibleByArgument {
    case nmea, json, gpx

    var format: ReplayFormat {
        switch self {
        case .nmea: .nmea
        case .json: .json
        case .gpx: .gpx
        }
    }
}

extension ReplayOutputFormat: ExpressibleByArgument {}

/// `--speed`: a multiple of real time in ``range``, or `max`.
///
/// Bounded so that every pause it makes is a `Duration` (1e-19 made one too long to
/// represent, and the process trapped): at a thousandth of real time a day of
/// recording lasts three years; a million times faster is as good as `max`.
enum ReplaySpeed: ExpressibleByArgument, Equatable {
    case factor(Double)
    case max

    /// The speeds accepted as numbers.
    static let range = 0.001...1_000_000.0

    init?(argument: String) {
        if argument == "max" {
            self = .max
        } else if let value = Double(argument), ReplaySpeed.range.contains(value) {
            self = .factor(value)
        } else {
            return nil
        }
    }

    /// The provider's speed: nil for as fast as possible.
    var factor: Double? {
        switch self {
        case .factor(let value): value
        case .max: nil
        }
    }

    var defaultValueDescription: String { "1" }
}
