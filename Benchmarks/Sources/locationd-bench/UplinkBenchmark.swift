import Foundation
import LocationState
import LocationUplinks
import NIOCore
import NIOHTTP1
import NIOPosix

/// `locationd-bench uplink`: the uplinks' sending, through the library's `Uplinks` (the
/// outbox, the sender, its kept-alive connection) to a loopback sink that answers as the servers do
/// (200, Overland's 201 `{"result":"ok"}`, Home Assistant's `Setting location for`), kept-alive:
///
/// - fix to server: a fix offered, the time until the sink has its request, one at a
///   time, 500 fixes per protocol; median and p99 (target: median under 5 ms);
/// - a 36,000-fix backlog (an hour at 10 Hz, stored while the server was away) drained
///   to an Overland target (target: under 3 s) and to an OsmAnd one, a fix a request
///   (target: at least 2,000 fixes/s), with the peer the issue names for it, one
///   `curl` a fix (what the one-off gpsd-to-Traccar scripts do), timed on 300 fixes.
func uplinkBenchmark() async throws {
    let sink = try await UplinkSink.start()
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("locationd-bench-uplink-\(getpid())")
    defer { try? FileManager.default.removeItem(at: work) }
    var medians: [String: Double] = [:]
    for kind in UplinkProtocol.allCases {
        let (median, p99) = try await fixToServer(
            kind, sink: sink, directory: work.appendingPathComponent(kind.rawValue))
        medians[kind.rawValue] = median
        print(String(format: "%@: fix to server, 500 fixes: median %.3f ms, p99 %.3f ms", kind.rawValue, median, p99))
    }
    let overland = try await drain(
        .overland, fixes: 36_000, sink: sink, directory: work.appendingPathComponent("drain-overland"))
    print(
        String(
            format: "overland: a 36,000-fix backlog drained in %.2f s (%.0f fixes/s; target < 3 s)", overland,
            36_000 / overland))
    let osmand = try await drain(
        .osmand, fixes: 36_000, sink: sink, directory: work.appendingPathComponent("drain-osmand"))
    let curl = try curlRate(port: sink.port, fixes: 300)
    print(
        String(
            format: "osmand: a 36,000-fix backlog drained in %.2f s (%.0f fixes/s; target >= 2,000)", osmand,
            36_000 / osmand))
    print(String(format: "curl, one POST a fix: %.0f fixes/s", curl))
    print(
        String(
            format:
                "uplink: ratio %.1f vs curl (osmand backlog %.0f fixes/s vs %.0f; fix to server median osmand %.3f ms, owntracks %.3f ms, overland %.3f ms, gpslogger %.3f ms; overland backlog %.2f s)",
            36_000 / osmand / curl, 36_000 / osmand, curl, medians["osmand"] ?? 0, medians["owntracks"] ?? 0,
            medians["overland"] ?? 0, medians["gpslogger"] ?? 0, overland))
}

private let benchStart = Date(timeIntervalSince1970: 1_800_000_000)

private func benchFix(_ index: Int) -> Location {
    Location(
        time: benchStart.addingTimeInterval(Double(index) / 10), mode: .threeD, lat: 52.5 + Double(index) * 1e-6,
        lon: 13.35, altMSL: 34, speed: 12, track: 80, eph: 4, epv: 6, satellitesUsed: 9, hdop: 0.9, source: .gpsd)
}

private func target(_ kind: UplinkProtocol, port: Int) throws -> UplinkTarget {
    let path =
        switch kind {
        case .osmand: "/?id=van"
        case .owntracks: "/pub"
        case .overland: "/api/v1/overland/batches"
        case .gpslogger: "/api/webhook/bench"
        }
    return try UplinkTarget.parse(
        "\(kind.rawValue)=http://127.0.0.1:\(port)\(path) device=van", origin: "bench", visible: false)
}

private func fixToServer(_ kind: UplinkProtocol, sink: UplinkSink, directory: URL) async throws -> (Double, Double) {
    let uplinks = try Uplinks(
        targets: [target(kind, port: sink.port)], directory: directory,
        eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
    let task = Task { await uplinks.run() }
    defer { task.cancel() }
    var milliseconds: [Double] = []
    for index in 0..<520 {
        let before = sink.requests.withLock { $0 }
        let sent = ContinuousClock.now
        await uplinks.offer(benchFix(index), motion: nil)
        let arrived = try await sink.arrival(after: before)
        if index >= 20 { milliseconds.append((arrived - sent).inSeconds * 1000) }
    }
    task.cancel()
    await task.value
    milliseconds.sort()
    return (milliseconds[milliseconds.count / 2], milliseconds[milliseconds.count * 99 / 100])
}

/// Seconds to deliver `fixes` already in the outbox.
private func drain(_ kind: UplinkProtocol, fixes: Int, sink: UplinkSink, directory: URL) async throws -> Double {
    let uplinks = try Uplinks(
        targets: [target(kind, port: sink.port)], directory: directory,
        eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
    for index in 0..<fixes { await uplinks.offer(benchFix(index), motion: nil) }
    let clock = ContinuousClock()
    let started = clock.now
    let task = Task { await uplinks.run() }
    while uplinks.statuses.withLock({ $0[0].backlog }) > 0 {
        try await Task.sleep(for: .milliseconds(2))
        guard clock.now - started < .seconds(300) else {
            throw UplinkSink.Failure("the backlog did not drain in 300 s")
        }
    }
    let elapsed = (clock.now - started).inSeconds
    task.cancel()
    await task.value
    return elapsed
}

/// Fixes a second that `curl` posting one fix a request reaches, the peer's way.
private func curlRate(port: Int, fixes: Int) throws -> Double {
    let started = ContinuousClock.now
    for index in 0..<fixes {
        let fix = benchFix(index)
        let url =
            "http://127.0.0.1:\(port)/?id=van&timestamp=\(Int(fix.time!.timeIntervalSince1970))&lat=\(fix.lat!)&lon=\(fix.lon!)"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", "/dev/null", "-X", "POST", url]
        try process.run()
        process.waitUntilExit()
    }
    return Double(fixes) / (ContinuousClock.now - started).inSeconds
}

/// A loopback HTTP/1.1 server that answers every request at once (200 with an empty
/// body; 201 `{"result":"ok"}` to Overland's path; 200 `Setting location for van` to a
/// Home Assistant webhook's) and counts them, with when each came.
final class UplinkSink: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    let channel: any Channel
    let port: Int
    /// Requests answered so far.
    let requests: Locked<Int>
    /// When the last request came.
    let lastArrival: Locked<ContinuousClock.Instant?>

    private init(channel: any Channel, requests: Locked<Int>, lastArrival: Locked<ContinuousClock.Instant?>) {
        self.channel = channel
        port = channel.localAddress?.port ?? 0
        self.requests = requests
        self.lastArrival = lastArrival
    }

    static func start() async throws -> UplinkSink {
        let requests = Locked(0)
        let lastArrival = Locked<ContinuousClock.Instant?>(nil)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(Handler(requests: requests, lastArrival: lastArrival))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return UplinkSink(channel: channel, requests: requests, lastArrival: lastArrival)
    }

    /// When the request after the first `count` came; polls, as the benchmark's own clock
    /// is what is measured.
    func arrival(after count: Int) async throws -> ContinuousClock.Instant {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            if requests.withLock({ $0 }) > count, let at = lastArrival.withLock({ $0 }) { return at }
            guard ContinuousClock.now < deadline else { throw Failure("no request reached the sink in 30 s") }
            await Task.yield()
        }
    }

    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        private let requests: Locked<Int>
        private let lastArrival: Locked<ContinuousClock.Instant?>
        private var path = ""

        init(requests: Locked<Int>, lastArrival: Locked<ContinuousClock.Instant?>) {
            self.requests = requests
            self.lastArrival = lastArrival
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): path = head.uri
            case .body: break
            case .end:
                let overland = path.hasPrefix("/api/v1/overland")
                let body =
                    overland ? #"{"result":"ok"}"# : path.hasPrefix("/api/webhook/") ? "Setting location for van" : ""
                var headers = HTTPHeaders([("Content-Length", String(body.utf8.count))])
                if overland { headers.add(name: "Content-Type", value: "application/json") }
                let status: HTTPResponseStatus = overland ? .created : .ok
                lastArrival.withLock { $0 = .now }
                requests.withLock { $0 += 1 }
                context.write(
                    wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                    promise: nil)
                context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
