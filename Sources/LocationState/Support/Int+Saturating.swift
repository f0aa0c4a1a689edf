extension Int {
    /// `value` rounded toward zero, clamped to `Int`'s range, 0 for NaN: `Int(_:)` traps
    /// on a value it cannot represent, and numbers read from outside can be any double.
    @inline(__always)
    package init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 0x1p63 {
            self = .max
        } else if value < -0x1p63 {
            self = .min
        } else {
            self = Int(value)
        }
    }
}
