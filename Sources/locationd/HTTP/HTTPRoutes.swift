import Foundation
import Hummingbird
import LocationState
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
    /// The status as `?STATUS;` answers it, for a given status value.
    let statusJSON: @Sendable (ProviderStatus) -> String
    /// Fields other services add to `/api/v1/status` (such as `"mqtt":{…}`), as a name and
    /// a function returning a JSON value.
    var statusFields: [(name: String, json: @Sendable () -> String)] = []
    /// The data directory, which holds the tile database.
    let dataDirectory: URL
    /// Where the track recorder writes its day files.
    let tracksDirectory: URL
    let events: HTTPEventStreams

    func add(to router: Router<HTTPRequestContext>) {
        router.get("/") { _, _ in HTTPPage.response }
        router.get("/api/v1") { _, _ in HTTPAnswer.json(Self.index) }
        router.get("/api/v1/last") { _, _ in last() }
        router.get("/api/v1/status") { _, _ in HTTPAnswer.json(statusAnswer(status.value)) }
        router.get("/api/v1/tiles") { request, _ in try tiles(request) }
        router.get("/api/v1/tiles/stats") { _, _ in try tileStatistics() }
        router.get("/api/v1/tracks") { _, _ in trackDays() }
        router.get("/api/v1/tracks.gpx") { request, _ in try trackRange(request) }
        router.get("/api/v1/tracks/{file}") { _, context in try trackDay(context.parameters.get("file") ?? "") }
        router.get("/api/v1/events") { _, context in eventStream(closing: context.channel) }
    }

    /// What `/api/v1` lists.
    static let index = """
        {"endpoints":["/api/v1/last","/api/v1/status","/api/v1/tiles?zoom=Z&format=geojson|txt|csv",\
        "/api/v1/tiles/stats","/api/v1/tracks","/api/v1/tracks/YYYY-MM-DD.gpx",\
        "/api/v1/tracks.gpx?from=DATE&to=DATE","/api/v1/events"]}
        """

    // MARK: - Fix and status

    /// `?LAST;`'s answer with `code`, the exit status `locationd last` would give:
    /// 0 a current fix, 3 a stale or restored one, 4 none.
    private func last() -> Response {
        let answer = responder.last()
        let code =
            if answer.hasSuffix(#""state":"live"}"#) {
                ExitStatus.currentFix
            } else if answer.hasSuffix(#""state":"none"}"#) { ExitStatus.noFix } else {
                ExitStatus.staleOrRestoredFix
            }
        return HTTPAnswer.json(answer.dropLast() + #","code":\#(code)}"#)
    }

    /// `?STATUS;`'s answer with the tiles logged per zoom and the other services' fields.
    private func statusAnswer(_ value: ProviderStatus) -> String {
        var fields: [String] = []
        let summaries = (try? openTiles()?.summaries()) ?? []
        let perZoom = summaries.map { #""\#($0.zoom)":\#($0.tiles)"# }.joined(separator: ",")
        fields.append(#""tiles":{\#(perZoom)}"#)
        for field in statusFields { fields.append(#""\#(field.name)":\#(field.json())"#) }
        return statusJSON(value).dropLast() + "," + fields.joined(separator: ",") + "}"
    }

    private func eventStream(closing channel: any Channel) -> Response {
        let (responder, status, statusJSON) = (responder, status, statusJSON)
        let body = events.open(dropping: { channel.close(promise: nil) }) { send in
            // The watch's lines are TPV objects, and REGION objects after the fix that made
            // them when the daemon monitors regions: `fix` and `region` events.
            let stopFixes = responder.watch { line in
                send(line.hasPrefix(ControlAnswers.regionEventPrefix) ? "region" : "fix", line)
            }
            let observation = status.observe(policy: .all, sendingCurrentValue: true) { change in
                send("status", statusJSON(change.new))
            }
            return {
                stopFixes()
                observation.cancel()
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
    ///
    /// The daemon made the file and is creating its table in the first moments after
    /// start (a foreign file would have stopped it at start): that too is "no tiles yet".
    private func openTiles() throws(LocationError) -> TileDatabase? {
        let url = dataDirectory.appendingPathComponent(TileDatabase.fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try TileDatabase.openReadOnly(at: url)
        } catch  where error.message.contains("no such table") || error.message.contains("no locationd tile table") {
            return nil
        }
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
        let text = try databaseAnswer { try openTiles().map { try format.render($0, zoom: zoom) } ?? "" }
        let contentType =
            switch format {
            case .txt: "text/plain; charset=utf-8"
            case .csv: "text/csv; charset=utf-8"
            case .geojson: "application/geo+json"
            }
        return HTTPAnswer.text(text, contentType: contentType)
    }

    /// Per zoom: tiles, visits, the max square, first and last visit (as `locationd tiles --stats`).
    private func tileStatistics() throws -> Response {
        let zooms: [String] = try databaseAnswer {
            guard let database = try openTiles() else { return [] }
            return try database.summaries().map { summary in
                var fields = [
                    #""zoom":\#(summary.zoom)"#, #""tiles":\#(summary.tiles)"#, #""visits":\#(summary.visits)"#,
                ]
                if let square = try database.maxSquare(zoom: summary.zoom) {
                    fields.append(
                        #""maxSquare":{"size":\#(square.size),"x":\#(square.origin.x),"y":\#(square.origin.y)}"#)
                } else {
                    fields.append(#""maxSquare":{"size":0}"#)
                }
                fields.append(#""firstSeen":"\#(UTCCalendar.iso8601(summary.firstSeen))""#)
                fields.append(#""lastSeen":"\#(UTCCalendar.iso8601(summary.lastSeen))""#)
                return "{" + fields.joined(separator: ",") + "}"
            }
        }
        return HTTPAnswer.json(#"{"zooms":[\#(zooms.joined(separator: ","))]}"#)
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

    /// `{"days":[{"day":"2026-11-23","gpx":"/api/v1/tracks/2026-11-23.gpx","bytes":1234},…]}`, oldest first.
    private func trackDays() -> Response {
        let days = recordedDays().map { day, bytes in
            #"{"day":"\#(day)","gpx":"/api/v1/tracks/\#(day).gpx","bytes":\#(bytes)}"#
        }
        return HTTPAnswer.json(#"{"days":[\#(days.joined(separator: ","))]}"#)
    }

    /// The days with a recorded file (`YYYY-MM-DD.nmea`), oldest first, with the file's size.
    private func recordedDays() -> [(day: String, bytes: Int)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: tracksDirectory.path)) ?? []
        return names.sorted().compactMap { name in
            guard name.hasSuffix(".nmea"), Self.day(String(name.dropLast(5))) != nil else { return nil }
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: tracksDirectory.appendingPathComponent(name).path)
            return (String(name.dropLast(5)), (attributes?[.size] as? Int) ?? 0)
        }
    }

    private func trackDay(_ file: String) throws -> Response {
        guard file.hasSuffix(".gpx"), let start = Self.day(String(file.dropLast(4))) else {
            throw HTTPError(.badRequest, message: "a track is named YYYY-MM-DD.gpx, not '\(file.prefix(40))'")
        }
        let name = String(file.dropLast(4)) + ".nmea"
        let url = tracksDirectory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw HTTPError(.notFound, message: "no track was recorded on \(file.dropLast(4))")
        }
        return try gpx(of: [url], during: start...start.addingTimeInterval(86_400 - 0.001))
    }

    /// `?from=…&to=…`: dates (`2026-11-23`, a whole day) or times (`2026-11-23T12:00:00Z`).
    private func trackRange(_ request: Request) throws -> Response {
        let query = request.uri.queryParameters
        guard let fromText = query["from"], let toText = query["to"] else {
            throw HTTPError(.badRequest, message: "give the range as from=DATE&to=DATE (YYYY-MM-DD or ISO 8601 UTC)")
        }
        guard let from = Self.time(String(fromText), endOfDay: false) else {
            throw HTTPError(
                .badRequest, message: "from is not a date or an ISO 8601 UTC time: '\(fromText.prefix(40))'")
        }
        guard let to = Self.time(String(toText), endOfDay: true) else {
            throw HTTPError(.badRequest, message: "to is not a date or an ISO 8601 UTC time: '\(toText.prefix(40))'")
        }
        guard from <= to else { throw HTTPError(.badRequest, message: "the range is backwards: from is after to") }
        guard to.timeIntervalSince(from) <= Double(Self.maxRangeDays) * 86_400 else {
            throw HTTPError(.badRequest, message: "a range may span at most \(Self.maxRangeDays) days")
        }
        let files = recordedDays().compactMap { day, _ -> URL? in
            guard let start = Self.day(day), start <= to, start.addingTimeInterval(86_400) > from else { return nil }
            return tracksDirectory.appendingPathComponent(day + ".nmea")
        }
        return try gpx(of: files, during: from...to)
    }

    private func gpx(of files: [URL], during interval: ClosedRange<Date>) throws -> Response {
        do {
            return HTTPAnswer.text(
                try TrackRecorder.gpx(of: files, during: interval), contentType: "application/gpx+xml")
        } catch {
            throw HTTPError(.serviceUnavailable, message: error.message)
        }
    }

    // MARK: - Dates

    /// The start of a `YYYY-MM-DD` day in UTC, or `nil` when `text` is not one.
    static func day(_ text: String) -> Date? {
        guard text.utf8.count == 10, text.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || (48...57).contains($0) })
        else { return nil }
        guard let date = UTCCalendar.parseISO8601(text + "T00:00:00Z"),
            UTCCalendar.iso8601(date).hasPrefix(text)
        else { return nil }
        return date
    }

    /// A day (its start, or its last millisecond when `endOfDay`) or an ISO 8601 time.
    static func time(_ text: String, endOfDay: Bool) -> Date? {
        if let start = day(text) { return endOfDay ? start.addingTimeInterval(86_400 - 0.001) : start }
        guard text.utf8.count <= 40 else { return nil }
        return UTCCalendar.parseISO8601(text)
    }
}
