extension Location {
    /// The opening of a GPX 1.1 document with one track segment; track points follow.
    public static let gpxHeader = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="locationd" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><trkseg>

        """
    /// The closing of the document.
    public static let gpxFooter = "</trkseg></trk>\n</gpx>\n"

    /// One GPX `trkpt`; speed and course go in `extensions`, as GPX 1.1 has no element for them.
    public func appendGPXTrackPoint(to out: inout [UInt8]) {
        out.append(contentsOf: #"<trkpt lat=""#.utf8)
        DecimalFormatting.append(lat ?? .nan, decimals: 9, to: &out)
        out.append(contentsOf: #"" lon=""#.utf8)
        DecimalFormatting.append(lon ?? .nan, decimals: 9, to: &out)
        out.append(contentsOf: #"">"#.utf8)
        if let altitude = altMSL {
            out.append(contentsOf: "<ele>".utf8)
            DecimalFormatting.append(altitude, decimals: 3, to: &out)
            out.append(contentsOf: "</ele>".utf8)
        }
        if let time {
            out.append(contentsOf: "<time>".utf8)
            UTCCalendar.appendISO8601(time, to: &out)
            out.append(contentsOf: "</time>".utf8)
        }
        out.append(contentsOf: (mode == .threeD ? "<fix>3d</fix>" : "<fix>2d</fix>").utf8)
        if let satellites = satellitesUsed {
            out.append(contentsOf: "<sat>".utf8)
            DecimalFormatting.appendInteger(satellites, to: &out)
            out.append(contentsOf: "</sat>".utf8)
        }
        if let hdop = hdop {
            out.append(contentsOf: "<hdop>".utf8)
            DecimalFormatting.append(hdop, decimals: 2, to: &out)
            out.append(contentsOf: "</hdop>".utf8)
        }
        if speed != nil || track != nil {
            out.append(contentsOf: "<extensions>".utf8)
            if let speed = speed {
                out.append(contentsOf: "<speed>".utf8)
                DecimalFormatting.append(speed, decimals: 3, to: &out)
                out.append(contentsOf: "</speed>".utf8)
            }
            if let track = track {
                out.append(contentsOf: "<course>".utf8)
                DecimalFormatting.append(track, decimals: 4, to: &out)
                out.append(contentsOf: "</course>".utf8)
            }
            out.append(contentsOf: "</extensions>".utf8)
        }
        out.append(contentsOf: "</trkpt>\n".utf8)
    }

}
