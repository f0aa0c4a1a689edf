import LocationState

/// libFuzzer entry point: decodes the input as an NMEA stream and checks every fix is sane.
///
/// The first byte picks the chunk size, so line framing across chunk boundaries is
/// fuzzed too; each line is also parsed on its own. A fix outside the valid ranges,
/// or with a non-finite value, is a bug: the target traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let chunk = max(1, Int(bytes.first ?? 0))
    var decoder = NMEADecoder()
    var fixes = 0
    let check: (FixReport) -> Void = { event in
        guard case .fix(let location) = event else { return }
        fixes += 1
        guard let lat = location.lat, let lon = location.lon, abs(lat) <= 90, abs(lon) <= 180,
            location.mode.hasPosition
        else { fatalError("fix without a valid position: \(location)") }
        for value in [location.altMSL, location.speed, location.track, location.climb, location.eph, location.hdop] {
            if let value, !value.isFinite { fatalError("non-finite value in \(location)") }
        }
        var json: [UInt8] = []
        location.appendJSON(to: &json)
        guard json.first == UInt8(ascii: "{"), json.last == UInt8(ascii: "}") else { fatalError("bad JSON") }
    }
    var start = 0
    while start < bytes.count {
        let end = min(start + chunk, bytes.count)
        decoder.decode(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<end])), check)
        start = end
    }
    decoder.finish(check)
    guard decoder.statistics.fixes == fixes else { fatalError("fix count mismatch") }
    var lineStart = 0
    for index in 0...bytes.count where index == bytes.count || bytes[index] == 10 {
        _ = NMEAParser.parse(UnsafeBufferPointer(rebasing: bytes[lineStart..<index]))
        lineStart = index + 1
    }
    return 0
}
