import Foundation

extension Location {
    /// Appends one human-readable line (with newline):
    /// `2024-05-01T12:00:00.000Z 3D 51.925907 4.577646 alt -4.0 m speed 0.11 m/s track 54.7`
    public func appendText(to out: inout [UInt8]) {
        if let time {
            UTCCalendar.appendISO8601(time, to: &out)
        } else {
            DecimalFormatting.appendLiteral("(no time)", to: &out)
        }
        DecimalFormatting.appendLiteral(mode == .threeD ? " 3D " : " 2D ", to: &out)
        DecimalFormatting.append(lat ?? .nan, decimals: 6, to: &out)
        out.append(32)
        DecimalFormatting.append(lon ?? .nan, decimals: 6, to: &out)
        if let altitude = altMSL {
            DecimalFormatting.appendLiteral(" alt ", to: &out)
            DecimalFormatting.append(altitude, decimals: 1, to: &out)
            DecimalFormatting.appendLiteral(" m", to: &out)
        }
        if let speed = speed {
            DecimalFormatting.appendLiteral(" speed ", to: &out)
            DecimalFormatting.append(speed, decimals: 2, to: &out)
            DecimalFormatting.appendLiteral(" m/s", to: &out)
        }
        if let track = track {
            DecimalFormatting.appendLiteral(" track ", to: &out)
            DecimalFormatting.append(track, decimals: 1, to: &out)
        }
        out.append(10)
    }

}
