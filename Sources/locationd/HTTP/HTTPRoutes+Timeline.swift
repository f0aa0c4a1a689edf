import Foundation
import Hummingbird
import LocationState
import LocationTimeline

/// The timeline over HTTP: `GET /api/v1/timeline` and the `motion`, `stay` and `trip`
/// events of `/api/v1/events`.
extension HTTPRoutes {
    /// What the daemon knows of motion, stays and trips.
    struct Timeline: Sendable {
        var motion: MonitoredState<Motion>
        /// The last closed stay or trip, or motion change.
        var events: MonitoredState<TimelineEvent?>
        /// The stays and trips, closed and open, that overlap the range, in time order, as
        /// JSON objects (`{"class":"STAY",…}`, `{"class":"TRIP",…}`); a `usage` error (a 400)
        /// when the range holds more than one answer may.
        var entries: @Sendable (_ from: Date, _ to: Date) throws -> [String]
        /// The places as `?PLACES` lists them (PLACE objects, most time first, without the
        /// closing PLACES line).
        var places: @Sendable () throws -> [String]
    }

    /// `{"timezone":…,"count":N,"places":[…]}`: the places as `locationd places --json`
    /// lists them (`id`, `name`, `label`, `visits`, `seconds`, `first`, `last`, `lat`, `lon`).
    func placesAnswer() throws -> Response {
        guard let timeline else {
            throw HTTPError(.notFound, message: "the timeline is not kept by this daemon")
        }
        let places: [String]
        do {
            places = try timeline.places()
        } catch let error as LocationError {
            throw HTTPError(error.kind == .usage ? .badRequest : .serviceUnavailable, message: error.message)
        }
        return HTTPAnswer.json(
            #"{"timezone":"\#(responder.days.name)","count":\#(places.count),"places":[\#(places.joined(separator: ","))]}"#
        )
    }

    /// `?day=YYYY-MM-DD` (a day of the daemon's zone, midnight to midnight there; today
    /// without one) or `?from=…&to=…` (dates or ISO 8601 times, at most ``maxRangeDays``
    /// days): `{"timezone":…,"day":…,"from":…,"to":…,"distance":M,"entries":[…]}`, `day`
    /// only for a day, `from` and `to` with the zone's offset, `distance` the trips' metres.
    func timelineAnswer(_ request: Request) throws -> Response {
        guard let timeline else {
            throw HTTPError(.notFound, message: "the timeline is not kept by this daemon")
        }
        let days = responder.days
        let (from, to, day) = try Self.timelineRange(request.uri.queryParameters, days: days)
        let entries: [String]
        do {
            entries = try timeline.entries(from, to)
        } catch let error as LocationError {
            throw HTTPError(error.kind == .usage ? .badRequest : .serviceUnavailable, message: error.message)
        }
        let distance = entries.reduce(0.0) { total, entry in
            guard entry.hasPrefix(#"{"class":"TRIP""#), let range = entry.range(of: #""distance":"#) else {
                return total
            }
            return total + (Double(entry[range.upperBound...].prefix { $0 == "." || $0.isNumber }) ?? 0)
        }
        let dayMember = day.map { #""day":"\#($0)","# } ?? ""
        return HTTPAnswer.json(
            #"{"timezone":"\#(days.name)",\#(dayMember)"from":"\#(days.iso8601(from))","to":"\#(days.iso8601(to))","#
                + #""distance":"# + String(format: "%.1f", distance)
                + #","entries":[\#(entries.joined(separator: ","))]}"#)
    }

    /// The range a timeline request asks for, and the day when it names one (or none:
    /// today); a 400 for anything else.
    static func timelineRange(_ query: Parameters, days: LocalDays, now: Date = Date()) throws -> (
        Date, Date, day: String?
    ) {
        if query["from"] == nil, query["to"] == nil {
            let text = query["day"].map(String.init) ?? days.day(of: now)
            guard let interval = days.interval(ofDay: text) else {
                throw HTTPError(.badRequest, message: "day must be YYYY-MM-DD, not '\(text.prefix(40))'")
            }
            return (interval.lowerBound, interval.upperBound, text)
        }
        guard query["day"] == nil, let fromText = query["from"], let toText = query["to"] else {
            throw HTTPError(.badRequest, message: "give day=YYYY-MM-DD, or both from and to")
        }
        guard let from = TrackExport.time(String(fromText), endOfDay: false, days: days) else {
            throw HTTPError(
                .badRequest, message: "from is not a date or an ISO 8601 UTC time: '\(fromText.prefix(40))'")
        }
        guard let to = TrackExport.time(String(toText), endOfDay: true, days: days) else {
            throw HTTPError(.badRequest, message: "to is not a date or an ISO 8601 UTC time: '\(toText.prefix(40))'")
        }
        guard from < to else { throw HTTPError(.badRequest, message: "from must come before to") }
        guard to.timeIntervalSince(from) <= Double(maxRangeDays) * 86_400 else {
            throw HTTPError(.badRequest, message: "the range is longer than \(maxRangeDays) days")
        }
        return (from, to, nil)
    }

    /// Attaches an event stream's `send` to the motion (`motion` events, the current one
    /// first), the closed stays and trips (`stay`, `trip`) and the stays a gap dropped
    /// (`drop`); returns the detach.
    func subscribeTimeline(_ send: @escaping @Sendable (_ event: String, _ data: String) -> Void)
        -> @Sendable () -> Void
    {
        guard let timeline else { return {} }
        let motion = timeline.motion.observe(on: watchers, policy: .all, sendingCurrentValue: true) { change in
            send("motion", change.new.jsonString)
        }
        let events = timeline.events.observe(on: watchers, policy: .all) { change in
            switch change.new {
            case .stayClosed(let stay)?: send("stay", stay.jsonString)
            case .tripClosed(let trip)?: send("trip", trip.jsonString)
            case .stayDropped(let stay)?:
                var line: [UInt8] = []
                stay.appendDropJSON(to: &line)
                send("drop", String(decoding: line, as: UTF8.self))
            case .motion?, nil: break
            }
        }
        return {
            motion.cancel()
            events.cancel()
        }
    }
}
