import Foundation
import LocationState

/// Decodes `bytes` with `decoder` in chunks whose size the first byte picks (so that
/// framing across chunk boundaries is fuzzed too), checks each report, and traps when
/// the decoder's count of fixes is not the number it reported.
public func fuzzDecode(_ bytes: UnsafeBufferPointer<UInt8>, with decoder: inout some ReplayDecoding) {
    let chunk = max(1, Int(bytes.first ?? 0))
    var fixes = 0
    let counted: (FixReport) -> Void = { report in
        if case .fix = report { fixes += 1 }
        check(report)
    }
    var start = 0
    while start < bytes.count {
        let end = min(start + chunk, bytes.count)
        decoder.decode(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[start..<end])), counted)
        start = end
    }
    decoder.finish(counted)
    guard decoder.statistics.fixes == fixes else { fatalError("fix count mismatch") }
}

/// What every reader's report must survive: the validation, then every writer of the
/// fix it keeps, and the writers of the fix as read too (they must be total). A fix
/// the validation keeps that is not in range is a bug: the target traps.
public func check(_ report: FixReport) {
    guard case .fix(let location) = report else { return }
    var out: [UInt8] = []
    location.appendJSON(to: &out)
    NMEAWriter().append(location, to: &out)
    location.appendGPXTrackPoint(to: &out)
    _ = OwnTracksLocation(location, trackerID: "fz", createdAt: Date(timeIntervalSince1970: 0)).payload
    let result = location.validated()
    guard let fix = result.location else { return }
    guard let lat = fix.lat, let lon = fix.lon, abs(lat) <= 90, abs(lon) <= 180, fix.mode.hasPosition,
        fix.time.map({ Location.accepts(time: $0) }) ?? true
    else { fatalError("the validation kept an impossible fix: \(fix.jsonString)") }
    for value in [fix.altMSL, fix.altHAE, fix.speed, fix.track, fix.climb, fix.eph, fix.epv, fix.hdop] {
        if let value, !value.isFinite { fatalError("non-finite value kept in \(fix.jsonString)") }
    }
    out.removeAll()
    fix.appendJSON(to: &out)
    guard out.first == UInt8(ascii: "{"), out.last == UInt8(ascii: "}") else { fatalError("bad JSON") }
    guard (try? JSONDecoder().decode(Location.self, from: Data(out))) != nil else {
        fatalError("the JSON of a valid fix does not read back: \(String(decoding: out, as: UTF8.self))")
    }
}
