import Foundation
import LocationState
import LocationTimeline

/// One request on the control socket, in the style of gpsd's protocol (`?LAST;`).
///
/// Requests start with `?`, name a command in upper case, may carry a JSON
/// argument after `=`, and end with `;` or a newline. Anything else is answered
/// with an `ERROR` object and the connection stays open.
enum ControlRequest: Equatable, Sendable {
    /// The current fix, or the last known one marked stale or restored, with its age.
    case last
    /// Stream every change of the device location until the client leaves.
    case watch
    /// Stop a stream started with `?WATCH;` (`?WATCH={"enable":false};`).
    case unwatch
    /// Source in use, connection state, counts and uptime.
    case status
    /// The daemon's name and protocol version.
    case version
    /// Where the HTTP server listens, and its token when it asks for one.
    case page
    /// The region file and the regions the device is in.
    case regions
    /// The tile log, at one zoom or every zoom: a TILE line per tile, then a TILES line.
    case tiles(zoom: Int?)
    /// Per zoom: tiles, visits, largest square, first and last visit.
    case tileStatistics(zoom: Int?)
    /// The stays and trips of a range: a STAY or TRIP line each, then a TIMELINE line.
    case timeline(TimelineRange)
    /// The recorded tracks of a day or a range, as the files hold them.
    case track(TrackRequest)
    /// The odometer's reading now or at a time, or a new setting.
    case odometer(OdometerAnswer.Request)
    /// The places, or one renamed first.
    case places(PlacesAnswer.Request)

    /// The days `?TRACK` asks for, as the user wrote them; `TrackExport` reads them.
    enum TrackRequest: Equatable, Sendable {
        case day(String)
        case range(from: String, to: String)
    }
    /// Not a request the daemon knows; the text is echoed in the error object.
    case unknown(String)
    /// A known request with an argument it cannot take; the message says why.
    case invalid(String)

    /// Parses one request, without its terminator; `days` reads the days `?TIMELINE` names.
    init(parsing text: Substring, days: LocalDays) {
        let trimmed = text.drop(while: { $0 == " " || $0 == "\t" || $0 == "\r" })
        guard trimmed.first == "?" else {
            self = .unknown(String(trimmed.prefix(64)))
            return
        }
        let body = trimmed.dropFirst()
        let name = body.prefix(while: { $0 != "=" })
        let argument = body.dropFirst(name.count + (body.count > name.count ? 1 : 0))
        switch name {
        case "LAST": self = .last
        case "STATUS": self = .status
        case "VERSION": self = .version
        case "PAGE": self = .page
        case "REGIONS": self = .regions
        case "WATCH": self = Self.watch(argument)
        case "TILES": self = Self.zoom(argument).map(Self.tiles) ?? Self.invalidZoom("TILES", argument)
        case "TILESTATS": self = Self.zoom(argument).map(Self.tileStatistics) ?? Self.invalidZoom("TILESTATS", argument)
        case "TIMELINE": self = Self.timeline(argument, days: days)
        case "TRACK": self = Self.track(argument)
        case "ODOMETER": self = Self.odometer(argument)
        case "PLACES": self = Self.places(argument)
        default: self = .unknown(String(name.prefix(64)))
        }
    }

    /// `?WATCH;`, or `?WATCH=` with a JSON object whose `enable` (true by default) turns the
    /// stream on or off; anything else is answered with an error, as gpsd does, and changes nothing.
    private static func watch(_ argument: Substring) -> ControlRequest {
        guard !argument.allSatisfy(\.isWhitespace) else { return .watch }
        guard let object = try? JSONSerialization.jsonObject(with: Data(argument.utf8)) as? [String: Any] else {
            return .invalid("Invalid WATCH: not a JSON object: \(argument.prefix(64))")
        }
        guard let enable = object["enable"] else { return .watch }
        guard let flag = enable as? Bool else {
            return .invalid("Invalid WATCH: enable must be true or false")
        }
        return flag ? .watch : .unwatch
    }

    /// `{"zoom":Z}`'s zoom (`.some(nil)` without one); nil when the argument is not that.
    private static func zoom(_ argument: Substring) -> Int?? {
        struct Argument: Decodable { let zoom: Int? }
        guard !argument.allSatisfy(\.isWhitespace) else { return .some(nil) }
        guard let decoded = try? JSONDecoder().decode(Argument.self, from: Data(argument.utf8)) else { return nil }
        guard let zoom = decoded.zoom else { return .some(nil) }
        return Tile.zoomRange.contains(zoom) ? .some(zoom) : nil
    }

    private static func invalidZoom(_ name: String, _ argument: Substring) -> ControlRequest {
        .invalid(
            "Invalid \(name): give {\"zoom\":Z} with Z from \(Tile.zoomRange.lowerBound) to \(Tile.zoomRange.upperBound), or nothing: \(argument.prefix(64))"
        )
    }

    /// The argument of `?TIMELINE` and `?TRACK`: a day, or the bounds of a range.
    private struct DayOrRange: Decodable {
        let day: String?
        let from: String?
        let to: String?
    }

    /// `?TIMELINE;` (today), `?TIMELINE={"day":"YYYY-MM-DD"};` or
    /// `?TIMELINE={"from":…,"to":…};` (dates, the later included whole, or ISO 8601 times);
    /// days are those of `days`' zone.
    private static func timeline(_ argument: Substring, days: LocalDays) -> ControlRequest {
        let bounds =
            argument.allSatisfy(\.isWhitespace)
            ? DayOrRange(day: nil, from: nil, to: nil)
            : try? JSONDecoder().decode(DayOrRange.self, from: Data(argument.utf8))
        guard let bounds else {
            return .invalid(
                #"Invalid TIMELINE: give {"day":DATE} or {"from":…,"to":…}, dates or ISO 8601 UTC times, or nothing: "#
                    + argument.prefix(64))
        }
        do {
            return .timeline(
                try TimelineRange.resolve(day: bounds.day, from: bounds.from, to: bounds.to, days: days, flag: ""))
        } catch {
            return .invalid("Invalid TIMELINE: \(error.message)")
        }
    }

    /// `?TRACK={"day":"YYYY-MM-DD"};` or `?TRACK={"from":…,"to":…};`.
    private static func track(_ argument: Substring) -> ControlRequest {
        switch try? JSONDecoder().decode(DayOrRange.self, from: Data(argument.utf8)) {
        case let bounds? where bounds.from == nil && bounds.to == nil && bounds.day != nil:
            return .track(.day(bounds.day ?? ""))
        case let bounds? where bounds.day == nil && bounds.from != nil && bounds.to != nil:
            return .track(.range(from: bounds.from ?? "", to: bounds.to ?? ""))
        default:
            return .invalid(#"Invalid TRACK: give {"day":"YYYY-MM-DD"} or {"from":…,"to":…}: "# + argument.prefix(64))
        }
    }

    /// `?ODOMETER;` (now), `?ODOMETER={"at":ISO8601};` or `?ODOMETER={"set":KM};`.
    private static func odometer(_ argument: Substring) -> ControlRequest {
        struct Argument: Decodable {
            let at: String?
            let set: Double?
        }
        guard !argument.allSatisfy(\.isWhitespace) else { return .odometer(.now) }
        switch try? JSONDecoder().decode(Argument.self, from: Data(argument.utf8)) {
        case let argument? where argument.set == nil && argument.at != nil:
            guard let time = argument.at.flatMap({ UTCCalendar.parseISO8601($0) }) else {
                return .invalid("Invalid ODOMETER: at is not an ISO 8601 time: \(argument.at?.prefix(40) ?? "")")
            }
            return .odometer(.at(time))
        case let argument? where argument.at == nil && argument.set != nil:
            guard let kilometres = argument.set.flatMap(OdometerAnswer.kilometres) else {
                return .invalid("Invalid ODOMETER: set must be kilometres from 0 to \(Int(Odometer.maxKilometres))")
            }
            return .odometer(.set(kilometres: kilometres))
        default:
            return .invalid(#"Invalid ODOMETER: give {"at":ISO8601}, {"set":KM} or nothing: "# + argument.prefix(64))
        }
    }

    /// `?PLACES;` or `?PLACES={"rename":ID,"name":NAME};` (an empty name takes the user's away).
    private static func places(_ argument: Substring) -> ControlRequest {
        struct Argument: Decodable {
            let rename: Int
            let name: String
        }
        guard !argument.allSatisfy(\.isWhitespace) else { return .places(.list) }
        guard let decoded = try? JSONDecoder().decode(Argument.self, from: Data(argument.utf8)) else {
            return .invalid(#"Invalid PLACES: give {"rename":ID,"name":NAME} or nothing: "# + argument.prefix(64))
        }
        guard let name = PlacesAnswer.name(decoded.name) else {
            return .invalid(
                "Invalid PLACES: a name is at most \(PlacesAnswer.maxNameBytes) bytes, without control characters")
        }
        return .places(.rename(id: decoded.rename, name: name))
    }

    /// Splits buffered bytes into complete requests; returns them, how many bytes they
    /// used, and the length of the longest one (without its terminator), so that the
    /// caller can bound every request, not only the unterminated rest.
    ///
    /// A request ends at `;` or `\n`; blank requests are skipped. Bytes after the last
    /// terminator stay for the next read.
    static func split(_ bytes: some Collection<UInt8>, days: LocalDays) -> (
        requests: [ControlRequest], consumed: Int, longest: Int
    ) {
        var requests: [ControlRequest] = []
        var start = 0
        var index = 0
        var current: [UInt8] = []
        var longest = 0
        for byte in bytes {
            index += 1
            if byte == UInt8(ascii: ";") || byte == UInt8(ascii: "\n") {
                longest = max(longest, current.count)
                let text = String(decoding: current, as: UTF8.self)
                if !text.allSatisfy({ $0.isWhitespace }) {
                    requests.append(ControlRequest(parsing: Substring(text), days: days))
                }
                current.removeAll(keepingCapacity: true)
                start = index
            } else {
                current.append(byte)
            }
        }
        return (requests, start, longest)
    }
}
