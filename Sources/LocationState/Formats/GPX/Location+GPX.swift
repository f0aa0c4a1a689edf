import LocationState

extension Location {
    /// The namespace of Garmin's TrackPointExtension v2, where locationd writes speed and course.
    ///
    /// GPX 1.1 has no element for either, and its schema admits only elements of other
    /// namespaces in `<extensions>`; Garmin's is the one most readers know (Garmin
    /// Connect, Strava, GPSBabel, OsmAnd, QGIS).
    public static let gpxTrackPointExtensionV2 = "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"

    /// The opening of a GPX 1.1 document with one track segment; track points follow.
    public static let gpxHeader = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="locationd" xmlns="http://www.topografix.com/GPX/1/1" \
        xmlns:gpxtpx="\(gpxTrackPointExtensionV2)">
        <trk><trkseg>

        """
    /// Ends one track segment and starts the next: written where the fixes were interrupted.
    public static let gpxSegmentBreak = "</trkseg><trkseg>\n"
    /// The closing of the document.
    public static let gpxFooter = "</trkseg></trk>\n</gpx>\n"

    /// One GPX `trkpt`, valid against the GPX 1.1 schema; nothing for a fix without a position.
    ///
    /// Children in the schema's order (`ele`, `time`, `fix`, `sat`, `hdop`); speed (m/s) and
    /// course (degrees true) in Garmin's TrackPointExtension v2. Values the schema forbids are
    /// left out or brought into its range: a longitude of 180° is written as -180°, a
    /// course of 360° or more as its remainder.
    public func appendGPXTrackPoint(to out: inout [UInt8]) {
        guard let lat, let lon, lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else { return }
        DecimalFormatting.appendLiteral(#"<trkpt lat=""#, to: &out)
        DecimalFormatting.append(lat, decimals: 9, to: &out)
        DecimalFormatting.appendLiteral(#"" lon=""#, to: &out)
        // The schema's longitude is in [-180, 180); 180 rounded to nine decimals is 180 too.
        DecimalFormatting.append(lon >= 180 - 5e-10 ? lon - 360 : lon, decimals: 9, to: &out)
        DecimalFormatting.appendLiteral(#"">"#, to: &out)
        if let altitude = altMSL, altitude.isFinite {
            DecimalFormatting.appendLiteral("<ele>", to: &out)
            DecimalFormatting.append(altitude, decimals: 3, to: &out)
            DecimalFormatting.appendLiteral("</ele>", to: &out)
        }
        if let time {
            DecimalFormatting.appendLiteral("<time>", to: &out)
            UTCCalendar.appendISO8601(time, to: &out)
            DecimalFormatting.appendLiteral("</time>", to: &out)
        }
        DecimalFormatting.appendLiteral(mode == .threeD ? "<fix>3d</fix>" : "<fix>2d</fix>", to: &out)
        if let satellites = satellitesUsed, satellites >= 0 {
            DecimalFormatting.appendLiteral("<sat>", to: &out)
            DecimalFormatting.appendInteger(satellites, to: &out)
            DecimalFormatting.appendLiteral("</sat>", to: &out)
        }
        if let hdop, hdop.isFinite {
            DecimalFormatting.appendLiteral("<hdop>", to: &out)
            DecimalFormatting.append(hdop, decimals: 2, to: &out)
            DecimalFormatting.appendLiteral("</hdop>", to: &out)
        }
        let speed = self.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let course = track.flatMap { $0.isFinite ? $0 - 360 * ($0 / 360).rounded(.down) : nil }
        if speed != nil || course != nil {
            DecimalFormatting.appendLiteral("<extensions><gpxtpx:TrackPointExtension>", to: &out)
            if let speed {
                DecimalFormatting.appendLiteral("<gpxtpx:speed>", to: &out)
                DecimalFormatting.append(speed, decimals: 3, to: &out)
                DecimalFormatting.appendLiteral("</gpxtpx:speed>", to: &out)
            }
            if let course {
                DecimalFormatting.appendLiteral("<gpxtpx:course>", to: &out)
                // 359.99996 would round to 360.0000, outside the extension's [0, 360).
                DecimalFormatting.append(course >= 359.99995 ? 0 : course, decimals: 4, to: &out)
                DecimalFormatting.appendLiteral("</gpxtpx:course>", to: &out)
            }
            DecimalFormatting.appendLiteral("</gpxtpx:TrackPointExtension></extensions>", to: &out)
        }
        DecimalFormatting.appendLiteral("</trkpt>\n", to: &out)
    }
}
