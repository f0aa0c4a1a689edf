import Foundation

extension Location {
    /// The times a fix may carry, seconds since 1970: from 1970-01-01 to the end of the year
    /// 9999, what every format locationd writes can represent (ISO 8601's four-digit years).
    public static let acceptedTimes = 0.0..<253_402_300_800.0

    /// Whether a fix may carry `time` (``acceptedTimes``).
    @inline(__always)
    public static func accepts(time: Date) -> Bool { acceptedTimes.contains(time.timeIntervalSince1970) }

    /// Why this fix does not pass ``validated()`` whole, or `nil` when it does: what a fix
    /// read back from disk, which locationd wrote after that validation, must pass.
    public var validationProblem: String? {
        let result = validated()
        return result.rejection?.reason ?? result.dropped.first?.reason
    }

    /// The one check every fix passes before the state, whatever its source (gpsd, a
    /// replayed file, the simulator, the store on disk); documented in docs/validation.md.
    ///
    /// A fix without a 2D or 3D mode, a finite latitude in -90...90 and longitude in
    /// -180...180, or with a time outside ``acceptedTimes``, is rejected. Any other number
    /// outside its range (non-finite included) is removed from the fix, which is kept:
    /// altitudes -12 km...1000 km, geoid separation ±200 m, speed 0...12 km/s (above the
    /// escape velocity), climb ±12 km/s, course 0...360°, error estimates 0...1000 km,
    /// HDOP 0...1000, satellites 0...1000, status 0...9 (gpsd's).
    public func validated() -> FixValidation {
        if let rejection { return FixValidation(location: nil, rejection: rejection, dropped: []) }
        var fix = self
        var dropped: [FixValidation.Problem] = []
        for field in Location.checkedFields {
            guard let value = measurements[field] else { continue }
            let range = Location.range(of: field)
            if !range.contains(value) {
                fix.measurements[field] = nil
                dropped.append(
                    FixValidation.Problem(
                        field: field.name,
                        reason: "\(field.name) \(value) is outside \(range.lowerBound)...\(range.upperBound)"))
            }
        }
        if let satellitesUsed, !(0...1000).contains(satellitesUsed) {
            fix.satellitesUsed = nil
            dropped.append(
                FixValidation.Problem(
                    field: "satellitesUsed", reason: "satellitesUsed \(satellitesUsed) is outside 0...1000"))
        }
        if let status, !(0...9).contains(status) {
            fix.status = nil
            dropped.append(FixValidation.Problem(field: "status", reason: "status \(status) is outside 0...9"))
        }
        return FixValidation(location: fix, rejection: nil, dropped: dropped)
    }

    /// What makes this fix impossible as a whole, if anything.
    private var rejection: FixValidation.Problem? {
        guard mode.hasPosition else {
            return FixValidation.Problem(field: "mode", reason: "mode \(mode.rawValue) is not a 2D or 3D fix")
        }
        guard let lat, let lon else { return FixValidation.Problem(field: "lat", reason: "it has no position") }
        guard (-90.0...90.0).contains(lat) else {
            return FixValidation.Problem(field: "lat", reason: "latitude \(lat) is outside -90...90")
        }
        guard (-180.0...180.0).contains(lon) else {
            return FixValidation.Problem(field: "lon", reason: "longitude \(lon) is outside -180...180")
        }
        if let time, !Location.accepts(time: time) {
            return FixValidation.Problem(
                field: "time",
                reason: "its time (\(time.timeIntervalSince1970) s since 1970) is outside the years 1970 to 9999")
        }
        return nil
    }

    /// The measurements checked against ``range(of:)`` (latitude and longitude reject the fix instead).
    private static let checkedFields: [Measurements.Field] = [
        .altHAE, .altMSL, .geoidSep, .speed, .climb, .track, .eph, .epv, .eps, .epc, .epx, .epy, .hdop,
    ]

    /// The values a measurement may take; NaN and infinities are in no range.
    private static func range(of field: Measurements.Field) -> ClosedRange<Double> {
        switch field {
        case .lat: -90...90
        case .lon: -180...180
        case .altHAE, .altMSL: -12_000...1_000_000
        case .geoidSep: -200...200
        case .speed: 0...12_000
        case .climb: -12_000...12_000
        case .track: 0...360
        case .eph, .epv, .eps, .epc, .epx, .epy: 0...1_000_000
        case .hdop: 0...1000
        }
    }
}

extension Location.Measurements.Field {
    /// The field's TPV name.
    package var name: String {
        switch self {
        case .lat: "lat"
        case .lon: "lon"
        case .altHAE: "altHAE"
        case .altMSL: "altMSL"
        case .speed: "speed"
        case .track: "track"
        case .climb: "climb"
        case .eph: "eph"
        case .epv: "epv"
        case .eps: "eps"
        case .epc: "epc"
        case .epx: "epx"
        case .epy: "epy"
        case .geoidSep: "geoidSep"
        case .hdop: "hdop"
        }
    }
}
