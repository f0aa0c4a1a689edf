import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationProviders
@testable import LocationState

/// Seeded fixes that reach every branch of the writer: both hemispheres, the poles
/// and the antimeridian, absent fields, every status, times with odd milliseconds
/// and without a time at all.
private func seededFixes(count: Int) -> [Location] {
    var random = SplitMix64(seed: 0x4E4D_4541)
    func maybe(_ value: Double) -> Double? { random.next() % 5 == 0 ? nil : value }
    let statuses: [Int?] = [nil, 0, 1, 2, 3, 4, 5, 6, 7, 8]
    let edges = [-90.0, 90, -180, 180, 0, -0.000_000_01, 179.999_999_999, 89.999_999_999_9]
    return (0..<count).map { index in
        let latitude = index % 50 == 0 ? edges[index / 50 % edges.count] : random.uniform(in: -90..<90)
        let longitude = index % 70 == 0 ? edges[index / 70 % edges.count] : random.uniform(in: -180..<180)
        let time: Date? =
            index % 40 == 0
            ? nil : Date(timeIntervalSince1970: random.uniform(in: 315_532_800..<3_471_292_800))
        return Location(
            time: time, mode: random.next() % 3 == 0 ? .twoD : .threeD, status: statuses[Int(random.next() % 10)],
            lat: latitude, lon: longitude, altMSL: maybe(random.uniform(in: -500..<20_000)),
            speed: maybe(random.uniform(in: 0..<400)), track: maybe(random.uniform(in: 0..<360)),
            geoidSep: maybe(random.uniform(in: -110..<90)),
            satellitesUsed: random.next() % 4 == 0 ? nil : Int(random.next() % 40),
            hdop: maybe(random.uniform(in: 0..<100)), source: .replay)
    }
}

/// FNV-1a, 64 bits: a fingerprint of the writer's output.
private func fingerprint(_ bytes: [UInt8]) -> UInt64 {
    bytes.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
}

@Test(.timeLimit(.minutes(10))) func theWriterKeepsItsBytesForSeededFixes() throws {
    let writer = NMEAWriter()
    var out: [UInt8] = []
    for (index, fix) in seededFixes(count: 20_000).enumerated() {
        writer.append(fix, to: &out)
        if index % 97 == 0 { writer.appendNoFix(at: fix.time, to: &out) }
    }
    if let path = ProcessInfo.processInfo.environment["NMEA_WRITER_DUMP"] {
        try Data(out).write(to: URL(fileURLWithPath: path))
    }
    // The fingerprint of the writer's output before its rewrite into one pass over a raw buffer.
    #expect(fingerprint(out) == 633_058_729_383_654_354, "\(fingerprint(out)) over \(out.count) bytes")
}
