import Foundation
import Hummingbird
import LocationProviders
import LocationState
import LocationStores
import NIOCore

/// What the HTTP server serves: the JSON API under `/api/v1/`, the event stream and
/// the page at `/`. Anything else is a 404; no path ever reaches the file system.
///
/// JSON answers use the field names of `locationd last --json` and the control
/// socket (``ControlAnswers``): a fix is a gpsd TPV object with `age` and `state`.
struct HTTPRoutes: Sendable {
    /// The longest range `/api/v1/tracks.gpx` exports, so that one request cannot make
    /// the daemon decode years of tracks.
    static let maxRangeDays = 31

    /// The control socket's answers, reused: `?LAST;`, and `?WATCH;` for fix events.
    let responder: ControlResponder
    /// The daemon's status, for `status` events.
    let status: MonitoredState<ProviderStatus>
    /// The status as `?STATUS;` answers it, for a given status value, with the tiles
    /// logged per zoom when given (`/api/v1/status`).
    let statusJSON: @Sendable (ProviderStatus, _ tiles: [TileZoomSummary]?) -> String
    /// The data directory, which holds the tile database.
    let dataDirectory: URL
    /// Where the track recorder writes its day files.
    let tracksDirectory: URL
    let events: HTTPEventStreams
    /// Where the event streams' subscriptions run: the daemon's one queue for what clients
    /// watch (``DaemonContext/watchers``).
    let watchers: DispatchQueue
    /// The page's basemap URL template (`http-basemap`), or `nil` for none.
    var basemap: String?
    /// Motion, stays and trips (`HTTPRoutes+Timeline`), or `nil` when not kept.
    var timeline: Timeline?
    /// The uplinks' states as a JSON array (as `?STATUS;`'s `uplinks`), or `nil` when none
    /// is configured (`[]`).
    var uplinks: (@Sendable () -> String)?

    func add(to router: Router<HTTPRequestContext>) {
        let page = HTTPPage.response(basemap: basemap, days: responder.days)
        router.get("/") { _, _ in page }
        router.get("/api/v1") { _, _ in HTTPAnswer.json(Self.index) }
        router.get("/api/v1/last") { _, _ in last() }
        router.get("/api/v1/status") { _, _ in HTTPAnswer.json(statusAnswer(status.value)) }
        router.get("/api/v1/tiles") { request, _ in try tiles(request) }
        router.get("/api/v1/tiles/stats") { _, _ in try tileStatistics() }
        router.get("/api/v1/tracks") { _, _ in trackDays() }
        router.get("/api/v1/tracks.gpx") { request, _ in try trackRange(request) }
        router.get("/api/v1/tracks/{file}") { _, context in try trackDay(context.parameters.get("file") ?? "") }
        router.get("/api/v1/timeline") { request, _ in try timelineAnswer(request) }
        router.get("/api/v1/places") { _, _ in try placesAnswer() }
        router.get("/api/v1/uplinks") { [uplinks] _, _ in HTTPAnswer.json(uplinks?() ?? "[]") }
        router.get("/api/v1/events") { _, context in eventStream(closing: context.channel) }
    }

    /// What `/api/v1` lists.
    static let index = """
        {"endpoints":["/api/v1/last","/api/v1/status","/api/v1/tiles?zoom=Z&format=geojson|txt|csv",\
        "/api/v1/tiles/stats","/api/v1/tracks","/api/v1/tracks/YYYY-MM-DD.gpx",\
        "/api/v1/tracks.gpx?from=DATE&to=DATE","/api/v1/timeline?day=DATE","/api/v1/places","/api/v1/uplinks",\
        "/api/v1/events"]}
        """

    // MARK: - Fix and status

    private func last() -> Response { HTTPAnswer.json(lastBody()) }

    /// `/api/v1/last`'s body (``HTTPLastBody``), for a request the router answers; the
    /// server answers most of them before, with a body that keeps its bytes (``HTTPFastLast``).
    func lastBody() -> ByteBuffer { HTTPLastBody(shown: responder.last).body() }

    /// `?STATUS;`'s answer with the tiles logged per zoom.
    private func statusAnswer(_ value: ProviderStatus) -> String {
        statusJSON(value, (try? openTiles()?.summaries()) ?? [])
    }

    private func eventStream(closing channel: any Channel) -> Response {
        let (responder, status, statusJSON, routes, queue) = (responder, status, statusJSON, self, watchers)
        let body = events.open(dropping: { channel.close(promise: nil) }) { send in
            // The watch's lines are TPV objects, and REGION objects after the fix that made
            // them when the daemon monitors regions: `fix` and `region` events.
            let stopFixes = responder.watch { line in
                send(line.hasPrefix(ControlAnswers.regionEventPrefix) ? "region" : "fix", line)
            }
            let observation = status.observe(on: queue, policy: .all, sendingCurrentValue: true) { change in
                send("status", statusJSON(change.new, nil))
            }
            let stopTimeline = routes.subscribeTimeline(send)
            return {
                stopFixes()
                observation.cancel()
                stopTimeline()
            }
        }
        guard let body else {
            return HTTPAnswer.error(.serviceUnavailable, "too many event streams are open; try again later")
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: body)
    }

    // MARK: - Tiles

    /// The tile database read-only, or `nil` when the daemon has not made one yet.
    private func openTiles() throws(LocationError) -> TileDatabase? {
        try TileDatabase.daemons(in: dataDirectory)
    }

    private func tiles(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        var zoom: Int?
        if let text = query["zoom"] {
            guard let value = Int(text), Tile.zoomRange.contains(value) else {
                throw HTTPError(
                    .badRequest,
                    message:
                        "zoom must be a number from \(Tile.zoomRange.lowerBound) to \(Tile.zoomRange.upperBound), not '\(text.prefix(40))'"
                )
            }
            zoom = value
        }
        let formatText = query["format"].map(String.init) ?? "geojson"
        guard let format = TileListFormat(rawValue: formatText) else {
            throw HTTPError(.badRequest, message: "format must be geojson, txt or csv, not '\(formatText.prefix(40))'")
        }
        let contentType =
            switch format {
            case .txt: "text/plain; charset=utf-8"
            case .csv: "text/csv; charset=utf-8"
            case .geojson: "application/geo+json"
            }
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        // The first page is read here, so that a database that cannot be read is still a 503.
        let database = try databaseAnswer { try openTiles() }
        let first = try databaseAnswer { try database?.tiles(zoom: zoom, after: nil, limit: Self.tilesPerWrite) } ?? []
        return Response(status: .ok, headers: headers, body: Self.tileList(format, first, database, zoom: zoom))
    }

    /// How many tiles the tile list reads from the database and writes to the client at a time.
    static let tilesPerWrite = 1024

    /// The tile list as `locationd tiles` prints it, written as it is read: a page of
    /// ``tilesPerWrite`` tiles at a time, each read when the client has taken the one
    /// before, so memory stays flat whatever the size of the log and however slowly
    /// the client reads.
    ///
    /// - Important: a page that cannot be read after the answer has begun ends the
    ///   connection without the chunked body's last chunk: the client sees a cut answer,
    ///   never a complete-looking wrong one.
    private static func tileList(
        _ format: TileListFormat, _ first: [TileRecord], _ database: TileDatabase?, zoom: Int?
    ) -> ResponseBody {
        ResponseBody { writer in
            var page = first
            var buffer = ByteBuffer(string: format.header)
            var isFirst = true
            while !page.isEmpty {
                for record in page {
                    buffer.writeString(format.entry(record, first: isFirst))
                    isFirst = false
                }
                try await writer.write(buffer)
                buffer.clear()
                guard page.count == tilesPerWrite, let database else { break }
                page = try database.tiles(zoom: zoom, after: page.last?.tile, limit: tilesPerWrite)
            }
            buffer.writeString(format.footer)
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
            try await writer.finish(nil)
        }
    }

    /// Per zoom: tiles, visits, the max square, first and last visit (as `locationd tiles --stats`).
    private func tileStatistics() throws -> Response {
        let statistics = try databaseAnswer {
            try openTiles().map { try TileStatistics.read($0) } ?? TileStatistics(zooms: [])
        }
        return HTTPAnswer.json(statistics)
    }

    /// Runs a database read; a database that cannot be read is a 503 with its reason.
    private func databaseAnswer<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as LocationError {
            throw HTTPError(.serviceUnavailable, message: error.message)
        }
    }

    // MARK: - Tracks

    /// `{"days":[{"day":"2026-11-23","gpx":"/api/v1/tracks/2026-11-23.gpx","bytes":1234},…]}`, oldest first:
    /// the recorded files, named by UTC days; each `gpx` is the local day of that name.
    private func trackDays() -> Response {
        let days = TrackExport.recordedDays(in: tracksDirectory).map { day, bytes in
            TrackDays.Day(day: day, gpx: "/api/v1/tracks/\(day).gpx", bytes: bytes)
        }
        return HTTPAnswer.json(TrackDays(days: days))
    }

    private func trackDay(_ file: String) throws -> Response {
        guard file.hasSuffix(".gpx"), TrackExport.day(String(file.dropLast(4))) != nil else {
            throw HTTPError(.badRequest, message: "a track is named YYYY-MM-DD.gpx, not '\(file.prefix(40))'")
        }
        return try gpx { () throws(TrackExport.Failure) in
            try TrackExport.day(String(file.dropLast(4)), in: tracksDirectory, days: responder.days)
        }
    }

    /// `?from=…&to=…`: dates (`2026-11-23`, a whole day) or times (`2026-11-23T12:00:00Z`).
    private func trackRange(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        return try gpx { () throws(TrackExport.Failure) in
            try TrackExport.range(
                from: query["from"].map(String.init), to: query["to"].map(String.init), in: tracksDirectory,
                maxDays: Self.maxRangeDays, days: responder.days)
        }
    }

    /// The export `select` chooses, as GPX; its failure as a 400 or 404, a track that
    /// cannot be read as a 503.
    private func gpx(_ select: () throws(TrackExport.Failure) -> TrackExport) throws -> Response {
        let export: TrackExport
        do {
            export = try select()
        } catch {
            throw HTTPError(error.kind == .missing ? .notFound : .badRequest, message: error.message)
        }
        do {
            return HTTPAnswer.text(try export.gpx(), contentType: "application/gpx+xml")
        } catch {
            throw HTTPError(.serviceUnavailable, message: error.message)
        }
    }
}
