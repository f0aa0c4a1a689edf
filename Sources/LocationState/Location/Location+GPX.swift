extension Location {
    /// The opening of a GPX 1.1 document with one track segment; track points follow.
    public static let gpxHeader = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="locationd" xmlns="http://www.topografix.com/GPX/1/1" \
        xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
        <trk><trkseg>

        """
    /// The closing of the document.
    public static let gpxFooter = "</trkseg></trk>\n</gpx>\n"

    /// One GPX `trkpt`; speed and course go in `extensions`, as GPX 1.1 has no element for them,
    /// in Garmin's TrackPointExtension v2 (which most GPX readers know): the schema allows only
    /// elements of another namespace there.
    public func appendGPXTrackPoint(to out: inout [UInt8]) {
        DecimalFormatting.appendLiteral(#"<trkpt lat=""#, to: &out)
        DecimalFormatting.append(lat ?? .nan, decimals: 9, to: &out)
        DecimalFormatting.appendLiteral(#"" lon=""#, to: &out)
        DecimalFormatting.append(lon ?? .nan, decimals: 9, to: &out)
        DecimalFormatting.appendLiteral(#"">"#, to: &out)
        if let altitude = altMSL {
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
        if let satellites = satellitesUsed {
            DecimalFormatting.appendLiteral("<sat>", to: &out)
            DecimalFormatting.appendInteger(satellites, to: &out)
            DecimalFormatting.appendLiteral("</sat>", to: &out)
        }
        if let hdop = hdop {
            DecimalFormatting.appendLiteral("<hdop>", to: &out)
            DecimalFormatting.append(hdop, decimals: 2, to: &out)
            DecimalFormatting.appendLiteral("</hdop>", to: &out)
        }
        if speed != nil || track != nil {
            DecimalFormatting.appendLiteral("<extensions><gpxtpx:TrackPointExtension>", to: &out)
            if let speed = speed {
                DecimalFormatting.appendLiteral("<gpxtpx:speed>", to: &out)
                DecimalFormatting.append(speed, decimals: 3, to: &out)
                DecimalFormatting.appendLiteral("</gpxtpx:speed>", to: &out)
            }
            if let track = track {
                DecimalFormatting.appendLiteral("<gpxtpx:course>", to: &out)
                DecimalFormatting.append(track, decimals: 4, to: &out)
                DecimalFormatting.appendLiteral("</gpxtpx:course>", to: &out)
            }
            DecimalFormatting.appendLiteral("</gpxtpx:TrackPointExtension></extensions>", to: &out)
        }
        DecimalFormatting.appendLiteral("</trkpt>\n", to: &out)
    }

}
