import Foundation
import LocationState
import LocationTimeline

/// How `locationd timeline` prints stays and trips: a table for people, JSON lines,
/// GeoJSON or GPX.
enum TimelineFormat {
    /// The table: a line per stay and trip, times in `days`' zone (named in the title), then
    /// the totals. The times carry their date when the range or its entries span more than
    /// one day, and their offset (`+02:00`) when it changes among them (a daylight
    /// saving change: 02:30 comes twice on the autumn day). An entry still
    /// open ends at its last fix, marked `*` and said under the table: that is all the
    /// timeline knows (a daemon without a fix, or stopped, or a file read, does not know now).
    static func table(_ entries: [TimelineEntry], title: String, spansDays: Bool, days: LocalDays) -> String {
        var text = "Timeline \(title) (\(days.name))\n"
        var (stays, trips, distance) = (0, 0, 0.0)
        let times = entries.flatMap { [$0.start, $0.end] }
        let dated = spansDays || Set(times.map(days.day(of:))).count > 1
        let zoned = Set(times.map(days.timeZone.secondsFromGMT(for:))).count > 1
        let marked = entries.contains(where: \.isOpen)
        let widest = times.map { clock($0, dated: dated, zoned: zoned, days: days).count }.max() ?? 5
        let width = widest + (marked ? 1 : 0)
        for entry in entries {
            let end = clock(entry.end, dated: dated, zoned: zoned, days: days) + (entry.isOpen ? "*" : "")
            let span = "\(pad(clock(entry.start, dated: dated, zoned: zoned, days: days), widest))–\(pad(end, width))"
            switch entry {
            case .stay(let stay):
                stays += 1
                text +=
                    "\(span)  stay  \(pad(TimelineEntry.duration(stay.duration), 11))  "
                    + (stay.name.map { $0.escapedForTerminal + "  " } ?? "")
                    + String(
                        format: "(%.6f, %.6f, %d fixes, radius %.0f m)", stay.latitude, stay.longitude, stay.fixes,
                        stay.radius)
            case .trip(let trip):
                trips += 1
                distance += trip.distance
                text +=
                    "\(span)  trip  \(pad(TimelineEntry.duration(trip.duration), 11))  \(TimelineEntry.distance(trip.distance)), "
                    + (trip.mode.map { $0.word + ", " } ?? "")
                    + String(format: "avg %.1f km/h, max %.1f km/h", trip.averageSpeed * 3.6, trip.maxSpeed * 3.6)
            }
            text += "\n"
        }
        if entries.isEmpty { text += "nothing recorded\n" }
        text += "\(stays) stays, \(trips) trips, \(TimelineEntry.distance(distance))\n"
        if marked {
            text += "* still open at its last fix\n"
        }
        return text
    }

    /// A FeatureCollection: each stay a Point at its centroid; each trip a LineString from
    /// the stay it left to the stay it reached (a straight line: the timeline keeps no path;
    /// `locationd export` has the track), or without geometry when either is not listed.
    /// `lines` are the entries' STAY and TRIP lines, their properties as written.
    static func geoJSON(_ entries: [TimelineEntry], lines: [String]) -> String {
        var stays: [Date: Stay] = [:]
        for case .stay(let stay) in entries { stays[stay.start] = stay }
        let features = zip(entries, lines).map { entry, line -> String in
            let geometry: String
            switch entry {
            case .stay(let stay):
                geometry = #"{"type":"Point","coordinates":[\#(coordinate(stay))]}"#
            case .trip(let trip):
                if let from = trip.from.flatMap({ stays[$0] }), let to = trip.to.flatMap({ stays[$0] }) {
                    geometry = #"{"type":"LineString","coordinates":[[\#(coordinate(from))],[\#(coordinate(to))]]}"#
                } else {
                    geometry = "null"
                }
            }
            return #"{"type":"Feature","geometry":\#(geometry),"properties":\#(line)}"#
        }
        return #"{"type":"FeatureCollection","features":["# + features.joined(separator: ",\n") + "]}\n"
    }

    /// A GPX 1.1 document: each stay a waypoint (its start as the time), each trip a route
    /// from the stay it left to the stay it reached, when both are listed.
    static func gpx(_ entries: [TimelineEntry]) -> String {
        var stays: [Date: Stay] = [:]
        for case .stay(let stay) in entries { stays[stay.start] = stay }
        var waypoints = ""
        var routes = ""
        for entry in entries {
            switch entry {
            case .stay(let stay):
                waypoints +=
                    "<wpt \(attributes(stay))><time>\(UTCCalendar.iso8601(stay.start))</time>"
                    + "<name>\(xmlEscaped(stay.name ?? "Stay")), \(TimelineEntry.duration(stay.duration))</name>"
                    + "<desc>\(UTCCalendar.iso8601(stay.start)) to \(UTCCalendar.iso8601(stay.end)), \(stay.fixes) fixes</desc>"
                    + "<type>stay</type></wpt>\n"
            case .trip(let trip):
                guard let from = trip.from.flatMap({ stays[$0] }), let to = trip.to.flatMap({ stays[$0] }) else {
                    continue
                }
                routes +=
                    "<rte><name>Trip \(TimelineEntry.distance(trip.distance))</name>"
                    + "<desc>\(UTCCalendar.iso8601(trip.start)) to \(UTCCalendar.iso8601(trip.end)), "
                    + "\(TimelineEntry.duration(trip.duration))</desc><type>trip</type>"
                    + "<rtept \(attributes(from))><time>\(UTCCalendar.iso8601(trip.start))</time></rtept>"
                    + "<rtept \(attributes(to))><time>\(UTCCalendar.iso8601(trip.end))</time></rtept></rte>\n"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="locationd" xmlns="http://www.topografix.com/GPX/1/1">

            """ + waypoints + routes + "</gpx>\n"
    }

    /// `text` with XML's five special characters as entities.
    private static func xmlEscaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    private static func coordinate(_ stay: Stay) -> String {
        String(format: "%.7f,%.7f", stay.longitude, stay.latitude)
    }

    private static func attributes(_ stay: Stay) -> String {
        String(format: "lat=\"%.7f\" lon=\"%.7f\"", stay.latitude, stay.longitude)
    }

    /// `HH:MM` of a time in `days`' zone, or `YYYY-MM-DD HH:MM` when the table spans days,
    /// followed by the zone's offset when `zoned`.
    private static func clock(_ date: Date, dated: Bool, zoned: Bool, days: LocalDays) -> String {
        let time = dated ? days.dateAndClock(date) : days.clock(date)
        return zoned ? "\(time) \(days.offset(at: date))" : time
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
