import Foundation
import LocationProviders
import LocationState
import LocationTestSupport
import LocationTimeline
import LocationUplinks
import Testing

@testable import locationd

/// The daemon's HTTP server in-process, on a free loopback port, over states the test
/// holds: the fix, the status, the motion, the timeline's stays and trips, and the uplinks. For the
/// page in a real browser where the test must choose what the daemon knows, and when
/// (a live fix dated now, a stop that began minutes ago).
final class PageServer: Sendable {
    let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
    let status = MonitoredState<ProviderStatus>(key: "providerStatus", initialValue: .connecting(.gpsd))
    let motion = MonitoredState<Motion>(key: "motion", initialValue: .unknown)
    let events = MonitoredState<TimelineEvent?>(key: "timelineEvents", initialValue: nil)
    /// What `/api/v1/timeline` answers from: the stays and trips, closed and open.
    let entries = Locked<[TimelineEntry]>([])
    /// What `/api/v1/places` answers: the places, most time first.
    let places = Locked<[PlacesAnswer]>([])
    /// What `/api/v1/uplinks` answers: the targets' states.
    let uplinks = Locked<[UplinkStatus]>([])
    let port: Int
    private let server: Task<Void, any Error>

    /// Starts the server over the data directory `directory` (no tiles, no tracks unless
    /// the test writes them there).
    ///
    /// - Parameter everyDay: answer every entry whatever day or range is asked, instead of
    ///   those that overlap it: for entries dated minutes before now, which near midnight
    ///   (UTC) lie partly on the day before the one the page shows.
    /// - Parameter idleTimeout: how long a connection may stay idle (the daemon's when nil).
    init(directory: String, everyDay: Bool = false, idleTimeout: Duration? = nil) async throws {
        let log = CapturedLog()
        let logger = log.logger(level: .notice)
        let context = try DaemonContext.testing(
            directory: directory, deviceLocation: deviceLocation, status: status, logger: logger)
        let (entries, uplinks, places) = (entries, uplinks, places)
        let routes = HTTPRoutes(
            responder: ControlResponder(context: context), status: status,
            statusJSON: { ControlAnswers.status($0, fixes: 0, uptimeSeconds: 0, tiles: $1) },
            dataDirectory: URL(fileURLWithPath: directory),
            tracksDirectory: URL(fileURLWithPath: directory + "/tracks"), events: HTTPEventStreams(logger: logger),
            watchers: context.watchers,
            timeline: .init(
                motion: motion, events: events,
                entries: { from, to in
                    entries.withLock { $0.filter { everyDay || ($0.end > from && $0.start < to) }.map(\.jsonString) }
                },
                places: { places.withLock { $0.map(ControlAnswers.line) } }),
            uplinks: { ControlAnswers.line(uplinks.withLock { $0 }) })
        var configuration = HTTPConfiguration()
        configuration.port = 0
        var service = HTTPService(configuration: configuration, routes: routes, token: nil, logger: logger)
        if let idleTimeout { service.limits.idleTimeout = .nanoseconds(Int64(idleTimeout / .nanoseconds(1))) }
        server = Task { try await service.run() }
        let line = try await log.lines.next(within: .seconds(20), "the URL logged") { $0.contains("serving") }
        port = try #require(Int(line.split(separator: ":").last?.prefix(while: \.isNumber) ?? ""))
    }

    var url: String { "http://127.0.0.1:\(port)/" }

    func stop() { server.cancel() }
}
