import Foundation

extension UplinkServer {
    /// Which server a stand-in reads requests as: the rules of that server's own code,
    /// each cited where it is applied (docs/uplink-servers.md has the overview).
    package enum Kind: Sendable {
        /// Traccar's OsmAnd protocol (port 5055) with these devices registered (by unique
        /// id); see `TraccarOsmAndRules`. Any method and path; the query first, a form body
        /// only when the query is empty; `id` or `deviceid`; an unknown device or none: 400,
        /// empty body; a value Java cannot parse (a decimal `timestamp`, `lat=`, `speed=abc`,
        /// a malformed `%`): the connection closed without an answer; `timestamp` below
        /// 2^31-1 seconds, else milliseconds; `speed` in knots; 200, empty body, keep-alive.
        case traccarOsmAnd(devices: Set<String>)
        /// Traccar's OwnTracks protocol (port 5144) with these devices registered: the
        /// unique id is the JSON's `topic` (`owntracks/USER/DEVICE`), else `tid`; see
        /// `TraccarOwnTracksRules`. Unknown: 400; not JSON, or `tst`/`lat`/`lon` missing or
        /// not numbers: closed without an answer; `vel` km/h; 200, empty body.
        case traccarOwnTracks(devices: Set<String>)
        /// The OwnTracks Recorder's `POST /pub`; see `RecorderRules`. User and device from
        /// `X-Limit-U`/`X-Limit-D` (else `?u=`/`?d=`, else owntracks/phone), lowercased;
        /// 200 `[]` always, also for what it drops (no `lat`/`lon`, not a location).
        case recorder
        /// Dawarich's `POST /api/v1/owntracks/points`; see `DawarichRules`. The key as
        /// `api_key` or `Authorization: Bearer`, else 401; the JSON read only under a JSON
        /// content type; 200 `[]` also for a point it drops; `vel` converted from km/h only
        /// with a `topic`; points unique by position and time (a resend replaces).
        case dawarichOwnTracks(apiKey: String)
        /// Dawarich's `POST /api/v1/overland/batches`: 201 `{"result":"ok"}`, 401, 500
        /// `{"error":"Batch creation failed"}` on a timestamp that is not a string.
        case dawarichOverland(apiKey: String)
        /// Reitti's `POST /api/v1/ingest/overland` with this API token; see `ReittiRules`.
        /// The token as `?token=`, `X-API-Token` or `Authorization: Bearer`; a wrong one 401,
        /// none a 302 to `/login`; JSON only (415); 200 `{"result":"ok"}` also for the points
        /// it drops: without `horizontal_accuracy`, or a timestamp without a `Z`/`±HH:MM` offset.
        case reittiOverland(token: String)
        /// PhoneTrack (Nextcloud) with this session token, at `/apps/phonetrack/log/traccar/
        /// TOKEN[/DEVICE]` (the OsmAnd query, `speed` knots back to m/s), `log/owntracks/…`
        /// and `log/overland/TOKEN/DEVICE`; see `PhoneTrackRules`. A wrong token or no
        /// timestamp: 403; traccar without `lat`/`lon`: 400; no de-duplication.
        case phoneTrack(token: String)
        /// Home Assistant's traccar webhook at `/api/webhook/WEBHOOK`; see
        /// `HomeAssistantRules`. POST or PUT (GET 405), fields only from the query; 422
        /// with voluptuous' message on a missing or unreadable field; 200 `Setting location
        /// for ID`; another webhook id: 200, empty body; the time is the arrival.
        case homeAssistantTraccar(webhook: String)
        /// Home Assistant's owntracks webhook at `/api/webhook/WEBHOOK`: 200 `[]` always;
        /// drops a location without `topic` and `X-Limit-U`, without `acc` or with `acc` 0.
        case homeAssistantOwnTracks(webhook: String)
        /// Home Assistant's gpslogger webhook at `/api/webhook/WEBHOOK`: POST or PUT, fields
        /// only from a form body; 422 on a missing, unreadable or extra field; 200 `Setting
        /// location for DEVICE`; the time is the arrival.
        case homeAssistantGPSLogger(webhook: String)

        /// How the server picks a device's current position among the fixes it kept.
        package enum CurrentPosition: Sendable {
            /// The newest by fix time; with `strictlyNewer`, a fix of the same time does not replace it.
            case byFixTime(strictlyNewer: Bool)
            /// The last to arrive.
            case byArrival
        }

        /// Traccar: a fix not before the current one (handler/PostProcessHandler.java:49-59);
        /// the Recorder: `tst` strictly newer (recorder.c:709-733); Dawarich: by timestamp
        /// (app/services/families/locations.rb:45); Reitti: by fix time, as it keeps points
        /// by their timestamp (not read further); PhoneTrack: `ORDER BY timestamp DESC`
        /// (lib/Db/PointMapper.php:77-89); Home Assistant: every update
        /// (traccar/device_tracker.py:178-191, owntracks `async_see`).
        package var currentPosition: CurrentPosition {
            switch self {
            case .traccarOsmAnd, .traccarOwnTracks, .dawarichOwnTracks, .dawarichOverland, .reittiOverland,
                .phoneTrack:
                .byFixTime(strictlyNewer: false)
            case .recorder: .byFixTime(strictlyNewer: true)
            case .homeAssistantTraccar, .homeAssistantOwnTracks, .homeAssistantGPSLogger: .byArrival
            }
        }

        /// Whether a kept fix replaces one of the same position and time (Dawarich's upsert)
        /// instead of being added beside it.
        var upserts: Bool {
            switch self {
            case .dawarichOwnTracks, .dawarichOverland: true
            default: false
            }
        }

        func decide(_ request: RecordedRequest, context: inout UplinkRuleContext) -> UplinkDecision {
            switch self {
            case .traccarOsmAnd(let devices): TraccarOsmAndRules.decide(request, devices: devices, context: &context)
            case .traccarOwnTracks(let devices):
                TraccarOwnTracksRules.decide(request, devices: devices, context: &context)
            case .recorder: RecorderRules.decide(request)
            case .dawarichOwnTracks(let key): DawarichRules.decideOwnTracks(request, apiKey: key)
            case .dawarichOverland(let key): DawarichRules.decideOverland(request, apiKey: key)
            case .reittiOverland(let token): ReittiRules.decideOverland(request, token: token)
            case .phoneTrack(let token): PhoneTrackRules.decide(request, token: token)
            case .homeAssistantTraccar(let webhook): HomeAssistantRules.decideTraccar(request, webhook: webhook)
            case .homeAssistantOwnTracks(let webhook): HomeAssistantRules.decideOwnTracks(request, webhook: webhook)
            case .homeAssistantGPSLogger(let webhook): HomeAssistantRules.decideGPSLogger(request, webhook: webhook)
            }
        }
    }
}

/// What a rule set reads besides the request.
struct UplinkRuleContext {
    /// The device of Traccar's session on this connection (session/ConnectionManager.java
    /// keeps one per connection, which a later message without an id falls back on).
    var connectionDevice: String?
    /// The last fix the server kept for a device.
    let lastFix: (String) -> StoredFix?
}
