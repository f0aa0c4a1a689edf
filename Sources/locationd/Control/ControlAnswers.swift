import Foundation
import LocationMQTT
import LocationProviders
import LocationRegions
import LocationState
import LocationStores
import LocationTimeline
import LocationUplinks

/// The JSON objects the daemon answers with, built from its states.
///
/// Each answer is an `Encodable` value encoded as one line; only `?WATCH;` lines, which
/// carry every fix, come from the TPV byte writer (``LocationState/Location/jsonString``),
/// which `LocationJSONTests` holds to the same output.
enum ControlAnswers {
    /// The TPV object that says no fix is known at all.
    static let noFixKnown = line(NoFixAnswer())

    /// How a region event's line starts (``RegionEvent/jsonString``), which a `?WATCH;` stream carries besides TPV lines.
    static let regionEventPrefix = #"{"class":"REGION""#

    /// The fix `?LAST;` shows, and its state.
    struct ShownFix: Sendable {
        var fix: Location
        /// `live`, `stale` or `restored`.
        var state: String

        /// The current fix (`live`), else the last known one, `stale` (this run) or
        /// `restored` (from disk); nil when none is known.
        init?(current: Location?, lastKnown: Location?) {
            if let current {
                (fix, state) = (current, "live")
            } else if let lastKnown {
                (fix, state) = (lastKnown, lastKnown.source == .restored ? "restored" : "stale")
            } else {
                return nil
            }
        }

        /// The fix's age at `now` in seconds, when it has a time.
        func age(at now: Date) -> Double? { fix.time.map { now.timeIntervalSince($0) } }
    }

    /// `?LAST;`: the fix shown (``ShownFix``) with its `state` and its `age` in seconds;
    /// else a TPV object of mode 0 with `"state":"none"`.
    static func last(_ shown: ShownFix?, now: Date) -> String {
        guard let shown else { return noFixKnown }
        return tpv(shown.fix, ageSeconds: shown.age(at: now), state: shown.state)
    }

    /// A fix as a TPV object with `age` (seconds, to the millisecond, when the fix has a
    /// time) and `state` added, as `?LAST;` answers and `locationd last --json` prints.
    ///
    /// Written by the TPV byte writer, as every fix is: `GET /api/v1/last` is a per-request
    /// path. `ControlAnswersTests` checks it against the `Encodable` encoding of the same members.
    static func tpv(_ fix: Location, ageSeconds: Double?, state: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(400)
        fix.appendJSON(to: &bytes, age: ageSeconds, state: state)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `?STATUS;`: source in use, connection, freshness, counts, uptime; the motion
    /// (`"motion":"moving"`, `"unknown"` or `"stopped"` with `"stoppedSince"`) and the fixes
    /// the motion tracker ignored, by reason (`"ignoredFixes":{…,"misdated":N,…}`); with MQTT on,
    /// `"mqtt":{"connected":BOOL,"queued":N,"dropped":N,"stalled":BOOL}` (messages waiting in
    /// the outbox; dropped since the start, beyond its bounds, not storable or refused by
    /// libmosquitto; whether the connected broker has stopped acknowledging).
    /// With uplinks, `"uplinks":[…]`, each target's ``UplinkStatus``.
    /// With `tiles` (the HTTP API's status), `"tiles":{"ZOOM":N,…}`, the tiles logged per zoom.
    static func status(
        _ status: ProviderStatus, fixes: Int, uptimeSeconds: Double, motion: Motion? = nil,
        ignoredFixes: IgnoredFixes? = nil, mqtt: MQTTPublisher.Snapshot? = nil, uplinks: [UplinkStatus]? = nil,
        tiles: [TileZoomSummary]? = nil
    ) -> String {
        var reason: String?
        if case .lost(_, let why, _) = status { reason = why }
        return line(
            StatusAnswer(
                source: status.source.rawValue, state: status.name, connected: status.isConnected, fixes: fixes,
                uptime: rounded(uptimeSeconds, decimals: 1), lastFix: status.lastFix.map(UTCCalendar.iso8601),
                reason: reason, motion: motion?.name, stoppedSince: motion?.stoppedSince.map(UTCCalendar.iso8601),
                ignoredFixes: ignoredFixes,
                mqtt: mqtt.map {
                    .init(connected: $0.connected, queued: $0.queued, dropped: $0.dropped, stalled: $0.stalled)
                },
                uplinks: uplinks, tiles: tiles.map(TileCounts.init)))
    }

    /// `?REGIONS;`: `{"class":"REGIONS","file":…,"count":…,"inside":[…],"pending":[…]}`, the
    /// region file, how many regions it holds, and the identifiers of those the device is
    /// in and of those it waits to dwell in, sorted.
    static func regions(file: String, count: Int, membership: MembershipState) -> String {
        line(
            RegionsAnswer(
                file: file, count: count, inside: membership.inside.sorted().map(\.rawValue),
                pending: membership.pendingSince.keys.sorted().map(\.rawValue)))
    }

    /// How many lines of a long answer (``ControlPages``) the server writes at a time.
    static let linesPerPage = 1024

    /// The most stays and trips one `?TIMELINE` answer holds (years of an ordinary life):
    /// the lines the daemon keeps for a client until it has taken them.
    static let maxTimelineEntries = 20_000

    /// The line that closes a `?TILES;` answer: `{"class":"TILES","zoom":Z,"count":N}`
    /// (`zoom` only when one was asked), `count` the TILE lines before it.
    static func tilesEnd(zoom: Int?, count: Int) -> String {
        line(TilesEnd(zoom: zoom, count: count))
    }

    /// `?TILESTATS;`: `{"class":"TILESTATS","zooms":[…]}`, as `GET /api/v1/tiles/stats` with the class.
    static func tileStatistics(_ statistics: TileStatistics) -> String {
        line(TileStatisticsAnswer(zooms: statistics.zooms))
    }

    /// `?TIMELINE`: a STAY or TRIP line per entry of `range`, in time order, then
    /// `{"class":"TIMELINE","from":…,"to":…,"count":N}`. The entries are bounded before they
    /// are read (``TimelineRecorder/boundedEntries(from:to:)``).
    static func timeline(_ entries: [TimelineEntry], range: TimelineRange) -> [String] {
        entries.map(\.jsonString)
            + [
                line(
                    TimelineEnd(
                        from: UTCCalendar.iso8601(range.start), to: UTCCalendar.iso8601(range.end),
                        count: entries.count))
            ]
    }

    /// `?PAGE;`: `{"class":"PAGE","url":…,"token":…}`, where the HTTP server listens and the
    /// token it asks for (each absent when there is none: no `url` when it serves no HTTP).
    static func page(url: String?, token: String?) -> String {
        line(Page(url: url, token: token))
    }

    /// One `?WATCH;` line: the fix, or a TPV of mode 1 when the location became unknown.
    static func watchLine(_ location: Location?) -> String {
        location?.jsonString ?? #"{"class":"TPV","mode":1}"#
    }

    /// `value` as one line of JSON, its members in the order it encodes them (`class` first).
    static func line(_ value: some Encodable) -> String {
        JSONLineEncoder().encodeFinite(value)
    }

    /// `value` rounded to `decimals` places, so that JSON shows no binary noise (`12.3`, not `12.300000000000001`).
    private static func rounded(_ value: Double, decimals: Int) -> Double {
        let scale = pow(10, Double(decimals))
        return (value * scale).rounded() / scale
    }

    private struct NoFixAnswer: Encodable {
        let `class` = "TPV"
        let mode = 0
        let state = "none"
    }

    private struct StatusAnswer: Encodable {
        struct MQTT: Encodable {
            let connected: Bool
            let queued: Int
            let dropped: Int
            let stalled: Bool
        }

        let `class` = "STATUS"
        let source: String
        let state: String
        let connected: Bool
        let fixes: Int
        /// Seconds since the daemon started, to a tenth.
        let uptime: Double
        /// ISO 8601 UTC with milliseconds.
        let lastFix: String?
        let reason: String?
        let motion: String?
        /// ISO 8601 UTC: since when the device is stopped.
        let stoppedSince: String?
        /// What the motion tracker ignored, by reason, since its state began (kept across restarts).
        let ignoredFixes: IgnoredFixes?
        let mqtt: MQTT?
        let uplinks: [UplinkStatus]?
        let tiles: TileCounts?
    }

    /// The tiles logged per zoom, as an object keyed by the zoom, lowest first.
    private struct TileCounts: Encodable {
        struct Zoom: CodingKey {
            let stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        let summaries: [TileZoomSummary]

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Zoom.self)
            for summary in summaries {
                try container.encode(summary.tiles, forKey: Zoom(stringValue: "\(summary.zoom)"))
            }
        }
    }

    private struct TilesEnd: Encodable {
        let `class` = "TILES"
        let zoom: Int?
        let count: Int
    }

    private struct TileStatisticsAnswer: Encodable {
        let `class` = "TILESTATS"
        let zooms: [TileStatistics.Zoom]
    }

    private struct TimelineEnd: Encodable {
        let `class` = "TIMELINE"
        let from: String
        let to: String
        let count: Int
    }

    private struct Page: Encodable {
        let `class` = "PAGE"
        let url: String?
        let token: String?
    }

    private struct RegionsAnswer: Encodable {
        let `class` = "REGIONS"
        let file: String
        let count: Int
        let inside: [String]
        let pending: [String]
    }
}
