extension Location {
    /// Why this is not a usable position fix, or `nil` when it is one: a 2D or 3D
    /// mode, a latitude in -90...90 and a longitude in -180...180, every number
    /// finite, and the errors, speed and satellites not negative.
    ///
    /// What a fix read back from disk must pass before it is shown (a live fix
    /// passes by construction: the decoders check the same ranges).
    public var validationProblem: String? {
        guard mode.hasPosition else { return "mode \(mode.rawValue) is not a 2D or 3D fix" }
        guard let lat, let lon else { return "it has no position" }
        guard lat.isFinite, (-90.0...90.0).contains(lat) else { return "latitude \(lat) is outside -90...90" }
        guard lon.isFinite, (-180.0...180.0).contains(lon) else { return "longitude \(lon) is outside -180...180" }
        let numbers: [(String, Double?)] = [
            ("altHAE", altHAE), ("altMSL", altMSL), ("track", track), ("climb", climb), ("geoidSep", geoidSep),
        ]
        for (name, value) in numbers {
            if let value, !value.isFinite { return "\(name) is not a finite number" }
        }
        let magnitudes: [(String, Double?)] = [
            ("speed", speed), ("eph", eph), ("epv", epv), ("eps", eps), ("epc", epc), ("epx", epx), ("epy", epy),
            ("hdop", hdop),
        ]
        for (name, value) in magnitudes {
            if let value, !(value.isFinite && value >= 0) { return "\(name) \(value) is not a number of 0 or more" }
        }
        if let satellitesUsed, satellitesUsed < 0 { return "satellitesUsed \(satellitesUsed) is negative" }
        return nil
    }
}
