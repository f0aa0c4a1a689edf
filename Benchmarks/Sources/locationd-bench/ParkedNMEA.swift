import Foundation

/// A receiver parked for days at 10 Hz, as NMEA: a GGA and an RMC an epoch, from
/// 2026-11-01 00:00:00 UTC, the position wandering a few metres around one spot (a slow
/// random walk, as a parked receiver's fix does), correct checksums, the date rolling
/// over at midnight. Written straight into bytes, so that a month (26 million epochs,
/// about 3.8 GB) is made faster than `locationd replay` reads it.
struct ParkedNMEA {
    /// Epochs a second.
    static let rate = 10
    static let epochsPerDay = 86_400 * rate

    /// The spot's positions, `ddmm.mmmmm,N,dddmm.mmmmm,E` each: a walk of 4,096 steps of
    /// at most 0.3 m, gone through forwards and back, so that it never jumps.
    private let positions: [[UInt8]]

    init() {
        var (latitude, longitude) = (48.137_154, 11.576_124)
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        var positions: [[UInt8]] = []
        for _ in 0..<4096 {
            // xorshift64*: the same walk every run.
            seed ^= seed >> 12
            seed ^= seed << 25
            seed ^= seed >> 27
            let random = seed &* 0x2545_F491_4F6C_DD1D
            let east = Double(Int(random & 0xFFFF) - 0x8000) / Double(0x8000) * 0.3
            let north = Double(Int((random >> 16) & 0xFFFF) - 0x8000) / Double(0x8000) * 0.3
            // Pulled back towards the spot: the walk stays within a few metres.
            latitude += north / 111_320 - (latitude - 48.137_154) * 0.01
            longitude += east / 74_400 - (longitude - 11.576_124) * 0.01
            positions.append(Array(Self.position(latitude, longitude).utf8))
        }
        self.positions = positions + positions.reversed()
    }

    private static func position(_ latitude: Double, _ longitude: Double) -> String {
        let (lat, lon) = (latitude * 60, longitude * 60)
        return String(
            format: "%02d%08.5f,N,%03d%08.5f,E", Int(lat / 60), lat.truncatingRemainder(dividingBy: 60),
            Int(lon / 60), lon.truncatingRemainder(dividingBy: 60))
    }

    /// Appends the epochs `range` (epoch 0 is 2026-11-01 00:00:00.0) to `bytes`.
    func append(epochs range: Range<Int>, to bytes: inout [UInt8]) {
        for epoch in range {
            let day = epoch / Self.epochsPerDay
            let tenths = epoch % Self.epochsPerDay
            let seconds = tenths / Self.rate
            var time: [UInt8] = []
            Self.digits(seconds / 3600, 2, &time)
            Self.digits(seconds / 60 % 60, 2, &time)
            Self.digits(seconds % 60, 2, &time)
            time.append(UInt8(ascii: "."))
            Self.digits(tenths % Self.rate * 10, 2, &time)
            let position = positions[epoch % positions.count]
            sentence(into: &bytes) { body in
                body += Array("GPGGA,".utf8) + time + [UInt8(ascii: ",")] + position
                body += Array(",1,09,0.9,545.4,M,46.9,M,,".utf8)
            }
            sentence(into: &bytes) { body in
                body += Array("GPRMC,".utf8) + time + Array(",A,".utf8) + position + Array(",0.02,,".utf8)
                // ddmmyy: November 2026 has 30 days; a longer run goes on into December.
                let (month, dayOfMonth) = day < 30 ? (11, day + 1) : (12, day - 29)
                Self.digits(dayOfMonth, 2, &body)
                Self.digits(month, 2, &body)
                body += Array("26,,,A".utf8)
            }
        }
    }

    /// Appends `$`, what `body` writes, `*`, the checksum and CR LF.
    private func sentence(into bytes: inout [UInt8], _ body: (inout [UInt8]) -> Void) {
        bytes.append(UInt8(ascii: "$"))
        let start = bytes.count
        body(&bytes)
        let checksum = bytes[start...].reduce(UInt8(0), ^)
        let hex = Array("0123456789ABCDEF".utf8)
        bytes += [UInt8(ascii: "*"), hex[Int(checksum >> 4)], hex[Int(checksum & 15)], 13, 10]
    }

    private static func digits(_ value: Int, _ count: Int, _ bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
