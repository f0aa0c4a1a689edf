import Foundation
import LocationProviders
import LocationState

/// GPX files written the way GPS loggers and the converters after them write them.
///
/// One file per producer, each several days of a person's life: the logger is off at
/// night (a long gap, a new `trkseg` the next morning), loses the sky indoors at work for
/// most of an hour (another gap and segment), and between them records a point every 1 to
/// 5 s (smart recording): several stays a day (home, work, lunch, a shop) with a parked
/// receiver's jitter, and the drives and walks between. Every file is valid GPX 1.1.
struct LoggerGPX {
    /// How one producer writes its files.
    enum Producer: String, CaseIterable {
        /// A Garmin Edge or eTrex: `gpxtpx:` TrackPointExtension v1 (temperature, heart rate,
        /// cadence) and `gpxx:` declared on the root, whole-second times, two-space indents.
        case garminDevice = "garmin-device"
        /// Garmin Connect's export: the same extension under `ns3:`, milliseconds that are
        /// always `.000`, float-artefact elevations, CRLF line endings.
        case garminConnect = "garmin-connect"
        /// GPSLogger for Android: a point a line, milliseconds, `sat`, `hdop`, `vdop`, `pdop`.
        case phoneLogger = "phone-logger"
        /// A desktop converter on Windows: CRLF and tabs, the day's places as `wpt` and the
        /// commute as a `rte` before the track, local times with their offset.
        case converter
    }

    /// One written file.
    struct File {
        var url: URL
        var points: Int
        var bytes: Int
    }

    /// Days in each file.
    var days: Int

    /// Writes one file per producer into `directory`.
    func write(into directory: URL) throws -> [File] {
        try Producer.allCases.enumerated().map { index, producer in
            let url = directory.appendingPathComponent("\(producer.rawValue).gpx")
            var writer = Writer(producer: producer, seed: 2026 + UInt64(index), origin: Self.cities[index])
            let text = writer.document(days: days, firstDay: 20_400 + index * days)
            let bytes = Array(text.utf8)
            try Data(bytes).write(to: url)
            return File(url: url, points: writer.points, bytes: bytes.count)
        }
    }

    private static let cities = [(48.137, 11.575), (52.520, 13.405), (47.377, 8.541), (50.110, 8.682)]

    /// The text of one producer's file, point by point.
    private struct Writer {
        let producer: Producer
        var random: SplitMix64
        /// Home; the other places are fixed offsets from it.
        let origin: (lat: Double, lon: Double)
        private(set) var points = 0
        private var text = ""
        private var drift = (north: 0.0, east: 0.0)
        private var segmentOpen = false

        init(producer: Producer, seed: UInt64, origin: (Double, Double)) {
            self.producer = producer
            random = SplitMix64(seed: seed)
            self.origin = origin
        }

        private var newline: String { producer == .garminConnect || producer == .converter ? "\r\n" : "\n" }
        private var indent: String { producer == .converter ? "\t" : "  " }

        mutating func document(days: Int, firstDay: Int) -> String {
            text.reserveCapacity(days * 7_000_000)
            head(firstDay: firstDay)
            for day in firstDay..<(firstDay + days) { write(day: day) }
            closeSegment()
            line(1, "</trk>")
            line(0, "</gpx>")
            return text
        }

        private mutating func line(_ depth: Int, _ content: String) {
            if producer != .phoneLogger { text += String(repeating: indent, count: depth) }
            text += content
            text += newline
        }

        private func place(_ north: Double, _ east: Double) -> (Double, Double) {
            (origin.lat + north / 111_195, origin.lon + east / (111_195 * cos(origin.lat * .pi / 180)))
        }

        private mutating func head(firstDay: Int) {
            let start = time(Double(firstDay * 86_400 + 6 * 3600))
            text += #"<?xml version="1.0" encoding="UTF-8"\#(producer == .phoneLogger ? " " : "")?>"# + newline
            switch producer {
            case .garminDevice:
                line(
                    0,
                    #"<gpx xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxx="http://www.garmin.com/xmlschemas/GpxExtensions/v3" "#
                        + #"xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" creator="Edge 830" version="1.1" "#
                        + #"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 "#
                        + #"http://www.topografix.com/GPX/1/1/gpx.xsd">"#)
                line(1, "<metadata>")
                line(2, #"<link href="http://www.garmin.com">"#)
                line(3, "<text>Garmin International</text>")
                line(2, "</link>")
                line(2, "<time>\(start)</time>")
                line(1, "</metadata>")
                line(1, "<trk>")
                line(2, "<name>Commute</name>")
            case .garminConnect:
                line(
                    0,
                    #"<gpx creator="Garmin Connect" version="1.1" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 "#
                        + #"http://www.topografix.com/GPX/11.xsd" xmlns:ns3="http://www.garmin.com/xmlschemas/TrackPointExtension/v1" "#
                        + #"xmlns="http://www.topografix.com/GPX/1/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" "#
                        + #"xmlns:ns2="http://www.garmin.com/xmlschemas/GpxExtensions/v3">"#)
                line(1, "<metadata>")
                line(2, #"<link href="connect.garmin.com">"#)
                line(3, "<text>Garmin Connect</text>")
                line(2, "</link>")
                line(2, "<time>\(start)</time>")
                line(1, "</metadata>")
                line(1, "<trk>")
                line(2, "<name>Munich Cycling</name>")
                line(2, "<type>cycling</type>")
            case .phoneLogger:
                text +=
                    #"<gpx xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="1.1" creator="GPSLogger 131 - http://gpslogger.mendhak.com/" "#
                    + #"xmlns="http://www.topografix.com/GPX/1/1" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 "#
                    + #"http://www.topografix.com/GPX/1/1/gpx.xsd" ><metadata><time>\#(start)</time></metadata><trk>"#
            case .converter:
                line(
                    0,
                    #"<gpx version="1.1" creator="GPSBabel - https://www.gpsbabel.org" xmlns="http://www.topografix.com/GPX/1/1">"#
                )
                line(1, "<metadata>")
                line(2, "<name>Week</name>")
                line(
                    2,
                    #"<bounds minlat="\#(origin.lat - 0.1)" minlon="\#(origin.lon - 0.1)" maxlat="\#(origin.lat + 0.1)" maxlon="\#(origin.lon + 0.1)"/>"#
                )
                line(1, "</metadata>")
                for (name, north, east) in Self.places {
                    let (lat, lon) = place(north, east)
                    line(1, String(format: #"<wpt lat="%.6f" lon="%.6f">"#, lat, lon))
                    line(2, "<name>\(name)</name>")
                    line(2, "<sym>Flag, Blue</sym>")
                    line(1, "</wpt>")
                }
                line(1, "<rte>")
                line(2, "<name>Home to work</name>")
                for step in 0...20 {
                    let (lat, lon) = place(4_450 * Double(step) / 20, -1_400 * Double(step) / 20)
                    line(2, String(format: #"<rtept lat="%.6f" lon="%.6f"/>"#, lat, lon))
                }
                line(1, "</rte>")
                line(1, "<trk>")
                line(2, "<name>Track log</name>")
            }
        }

        /// Places, metres north and east of home.
        private static let places = [
            ("Home", 0.0, 0.0), ("Work", 4_450.0, -1_400.0), ("Lunch", 4_730.0, -1_030.0), ("Shop", 1_800.0, 900.0),
        ]

        /// One day: (minutes it lasts, from, to, metres a second); from == to is a stay, a
        /// speed of zero a gap (no fix: indoors, an underground car park), after which the
        /// logger starts a new segment.
        private mutating func write(day: Int) {
            let (home, work, lunch, shop) = (0, 1, 2, 3)
            let plan: [(Double, Int, Int, Double)] = [
                (random.uniform(30, 50), home, home, 0.5), (random.uniform(18, 24), home, work, 11),
                (random.uniform(2, 5), work, work, 0), (random.uniform(90, 120), work, work, 0.5),
                (random.uniform(40, 80), work, work, 0),
                (random.uniform(30, 60), work, work, 0.5), (random.uniform(7, 9), work, lunch, 1.4),
                (random.uniform(40, 55), lunch, lunch, 0.5), (random.uniform(7, 9), lunch, work, 1.4),
                (random.uniform(180, 220), work, work, 0.5), (random.uniform(10, 14), work, shop, 9),
                (random.uniform(2, 5), shop, shop, 0), (random.uniform(15, 25), shop, shop, 0.5),
                (random.uniform(8, 12), shop, home, 9),
                (random.uniform(60, 120), home, home, 0.5),
            ]
            var second = Double(day * 86_400 + 6 * 3600 + 1800) + random.uniform(0, 1800).rounded()
            openSegment()
            for (minutes, from, to, speed) in plan {
                let end = second + (minutes * 60).rounded()
                guard speed > 0 else {
                    closeSegment()
                    second = end
                    openSegment()
                    continue
                }
                let a = Self.places[from]
                let b = Self.places[to]
                while second < end {
                    let progress = 1 - (end - second) / (minutes * 60)
                    var north = a.1 + (b.1 - a.1) * progress
                    var east = a.2 + (b.2 - a.2) * progress
                    // A parked receiver wanders within about 8 m and jumps 20-40 m about once an hour.
                    drift.north = max(-8, min(8, drift.north + random.uniform(-0.6, 0.6)))
                    drift.east = max(-8, min(8, drift.east + random.uniform(-0.6, 0.6)))
                    north += drift.north + (random.uniform(0, 1) < 3.0 / 3600 ? random.uniform(20, 40) : 0)
                    east += drift.east
                    point(place(north, east), second: second, moving: from != to)
                    second += random.uniform(1, 6).rounded(.down)
                }
            }
            closeSegment()
        }

        private mutating func openSegment() {
            line(2, "<trkseg>")
            segmentOpen = true
        }

        private mutating func closeSegment() {
            guard segmentOpen else { return }
            line(2, "</trkseg>")
            segmentOpen = false
        }

        private mutating func point(_ position: (Double, Double), second: Double, moving: Bool) {
            points += 1
            let elevation = 520 + 15 * sin(second / 5000) + random.uniform(-1.5, 1.5)
            switch producer {
            case .garminDevice:
                line(3, String(format: #"<trkpt lat="%.7f" lon="%.7f">"#, position.0, position.1))
                line(4, String(format: "<ele>%.1f</ele>", elevation))
                line(4, "<time>\(time(second))</time>")
                extensions(prefix: "gpxtpx", moving: moving)
                line(3, "</trkpt>")
            case .garminConnect:
                line(3, String(format: #"<trkpt lat="%.14f" lon="%.14f">"#, position.0, position.1))
                line(4, "<ele>\(Double(Float(elevation)))</ele>")
                line(4, "<time>\(time(second, fraction: ".000"))</time>")
                extensions(prefix: "ns3", moving: moving)
                line(3, "</trkpt>")
            case .phoneLogger:
                let milliseconds = String(format: ".%03d", Int(random.uniform(0, 1000)))
                text += String(
                    format: #"<trkpt lat="%.7f" lon="%.7f"><ele>%.1f</ele>"#, position.0, position.1, elevation)
                text += "<time>\(time(second, fraction: milliseconds))</time>"
                text += String(
                    format:
                        "<geoidheight>47.0</geoidheight><src>gps</src><sat>%d</sat><hdop>%.1f</hdop><vdop>%.1f</vdop><pdop>%.1f</pdop></trkpt>",
                    Int(random.uniform(6, 14)), random.uniform(0.6, 2.5), random.uniform(0.8, 3), random.uniform(1, 3.5)
                )
                text += newline
            case .converter:
                line(3, String(format: #"<trkpt lat="%.6f" lon="%.6f">"#, position.0, position.1))
                line(4, String(format: "<ele>%.3f</ele>", elevation))
                line(4, "<time>\(time(second, offsetHours: 1))</time>")
                line(3, "</trkpt>")
            }
        }

        /// Garmin's TrackPointExtension v1 as devices write it: temperature, heart rate, cadence.
        private mutating func extensions(prefix: String, moving: Bool) {
            line(4, "<extensions>")
            line(5, "<\(prefix):TrackPointExtension>")
            line(6, String(format: "<\(prefix):atemp>%.1f</\(prefix):atemp>", random.uniform(8, 24).rounded()))
            line(6, "<\(prefix):hr>\(Int(random.uniform(moving ? 110 : 62, moving ? 160 : 90)))</\(prefix):hr>")
            line(6, "<\(prefix):cad>\(moving ? Int(random.uniform(70, 95)) : 0)</\(prefix):cad>")
            line(5, "</\(prefix):TrackPointExtension>")
            line(4, "</extensions>")
        }

        /// `second` (since 1970, UTC) as an xsd:dateTime: in UTC with `fraction`, or in the
        /// local time `offsetHours` east of UTC with its offset.
        private func time(_ second: Double, fraction: String = "", offsetHours: Int = 0) -> String {
            let local = Date(timeIntervalSince1970: second.rounded(.down) + Double(offsetHours * 3600))
            let zone = offsetHours == 0 ? "Z" : String(format: "%+03d:00", offsetHours)
            return UTCCalendar.iso8601(local).prefix(19) + fraction + zone
        }
    }
}
