import LocationState

/// A ``TileLogger`` listens to the device's location: each change's new value is
/// recorded (``TileLogger/record(_:)``); `nil` (no current fix) is skipped, and so is a
/// simulated fix, which never becomes history (``Location/becomesHistory``): like `nil`,
/// it keeps the next real fix from being joined to the one before.
///
/// Attach it with ``DeliveryPolicy/all``: with ``DeliveryPolicy/latest`` a busy
/// logger sees fewer fixes, and the tiles between them are only interpolated.
///
/// ```swift
/// deviceLocation.addListener(tileLogger, policy: .all)
/// ```
extension TileLogger: StateListener {
    public func stateDidChange(_ change: StateChange<Location?>) {
        record(change.new.flatMap { $0.becomesHistory ? $0 : nil })
    }
}
