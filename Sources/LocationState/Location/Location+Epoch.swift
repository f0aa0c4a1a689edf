extension Location {
    /// This report with what it lacks taken from `earlier`, a report of the same epoch
    /// that came before it: each field is the latest report's that has one.
    ///
    /// gpsd's later report of an epoch carries everything the earlier ones did, plus what
    /// the sentences since added, and a speed a sentence gave replaces the one gpsd
    /// computed before it; so the latest report's values win (docs/gpsd-epochs.md).
    public func completing(_ earlier: Location) -> Location {
        var merged = self
        merged.status = status ?? earlier.status
        merged.satellitesUsed = satellitesUsed ?? earlier.satellitesUsed
        merged.device = device ?? earlier.device
        merged.measurements = measurements.completing(earlier.measurements)
        return merged
    }

    /// Which measurements a report has, as a set: gpsd's reports of one epoch differ in
    /// them by the sentences that came before each (docs/gpsd-epochs.md).
    package struct MeasuredFields: OptionSet, Sendable, Hashable {
        package let rawValue: UInt32

        package init(rawValue: UInt32) { self.rawValue = rawValue }

        /// The set of `fields`.
        package init(_ fields: Measurements.Field...) {
            self = fields.reduce(into: []) { set, field in set.insert(Self(rawValue: 1 << field.rawValue)) }
        }
    }

    /// The measurements this report has.
    package var measuredFields: MeasuredFields {
        Measurements.Field.allCases.reduce(into: []) { set, field in
            if measurements[field] != nil { set.insert(MeasuredFields(field)) }
        }
    }
}
