/// When a warning that can repeat is logged again: the first time, then at the 10th,
/// 100th, ... occurrence, so that a source sending nothing else does not flood the log.
package enum LogThrottle {
    /// Whether a count passed 1, 10, 100, ... in going from `before` to `after`.
    package static func passesPowerOfTen(from before: Int, to after: Int) -> Bool {
        var power = 1
        while power <= before {
            guard power <= Int.max / 10 else { return false }
            power *= 10
        }
        return power <= after
    }
}
