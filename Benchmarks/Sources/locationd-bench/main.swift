import Foundation

/// Every benchmark, by the name given on the command line. To add one, write a
/// file with an `async throws` function that prints its lines and ends with
/// `NAME: ratio R vs PEER (...)`, and add one line here.
let benchmarks: KeyValuePairs<String, @Sendable () async throws -> Void> = [
    "fanout": fanout,
    "gpx": gpxBenchmark,
    "last": lastBenchmark,
    "daemon": daemonBenchmark,
    "http": httpBenchmark,
    "http-events": httpEventsBenchmark,
    "json": jsonBenchmark,
    "latency": latency,
    "mqtt": mqttBenchmark,
    "replay": replayBenchmark,
    "pipeline": pipeline,
    "places": placesBenchmark,
    "regions": regionsBenchmark,
    "soak": soak,
    "tiles-memory": tilesMemory,
    "timeline": timelineBenchmark,
    "timeline-month": timelineMonthBenchmark,
    "uplink": uplinkBenchmark,
]

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 1, let name = arguments.first,
    let benchmark = benchmarks.first(where: { $0.key == name })?.value
else {
    let names = benchmarks.map(\.key).joined(separator: ", ")
    FileHandle.standardError.write(Data("usage: locationd-bench NAME, where NAME is one of: \(names)\n".utf8))
    exit(64)
}
// A failure is one line and exit 1: thrown to the top level, it would be a crash with a
// backtrace, and the lines printed before it would be lost in stdout's buffer.
do {
    try await benchmark()
} catch {
    fflush(nil)  // every output stream: stdout, where the lines printed so far wait
    FileHandle.standardError.write(Data("locationd-bench \(name): \(error)\n".utf8))
    exit(1)
}
