import Dispatch

/// The conversions of `Duration` that locationd needs, in one place.
extension Duration {
    /// The duration in seconds, fractions included (as precise as a `Double` is).
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// The duration in whole microseconds, rounded towards zero.
    package var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }

    /// The duration as a Dispatch interval, to the nanosecond (rounded towards zero,
    /// and at most `Int.max` nanoseconds, about 292 years).
    package var dispatchInterval: DispatchTimeInterval {
        let (seconds, attoseconds) = components
        let (nanoseconds, overflow) = Int(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .nanoseconds(seconds < 0 ? .min : .max) }
        let (sum, overflowAgain) = nanoseconds.addingReportingOverflow(Int(attoseconds / 1_000_000_000))
        return .nanoseconds(overflowAgain ? (seconds < 0 ? .min : .max) : sum)
    }
}
