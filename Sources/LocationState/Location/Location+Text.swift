import Foundation

extension Location {
    /// Appends one human-readable line (with newline):
    /// `2024-05-01T12:00:00.000Z 3D 51.925907 4.577646 alt -4.0 m speed 0.11 m/s track 54.7`
    public func appendText(to out: inout [UInt8]) {
        if let time {
            UTCCalendar.appendISO8601(time, to: &out)
        } else {
            out.append(contentsOf: "(no time)".utf8)
        }
        out.append(contentsOf: mode == .threeD ? " 3D ".utf8 : " 2D ".utf8)
        DecimalFormatting.append(lat ?? .nan, decimals: 6, to: &out)
        out.append(32)
        DecimalFormatting.append(lon ?? .nan, decimals: 6, to: &out)
        if let altitude = altMSL {
            out.append(contentsOf: " alt ".utf8)
            DecimalFormatting.append(altitude, decimals: 1, to: &out)
            out.append(contentsOf: " m".utf8)
        }
        if let speed = speed {
            out.append(contentsOf: " speed ".utf8)
            DecimalFormatting.append(speed, decimals: 2, to: &out)
            out.append(contentsOf: " m/s".utf8)
        }
        if let track = track {
            out.append(contentsOf: " track ".utf8)
            DecimalFormatting.append(track, decimals: 1, to: &out)
        }
        out.append(10)
    }

}
