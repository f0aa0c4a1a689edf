/// A ``TileLogger`` listens to the device's location: each change's new value is
/// recorded (``TileLogger/record(_:)``); `nil` (no current fix) is skipped.
///
/// Attach it with ``DeliveryPolicy/all``: with ``DeliveryPolicy/latest`` a busy
/// logger sees fewer fixes, and the tiles between them are only interpolated.
///
/// ```swift
/// deviceLocation.addListener(tileLogger, policy: .all)
/// ```
extension TileLogger: StateListener {
    public func stateDidChange(_ change: StateChange<Location?>) {
        record(change.new)
    }
}
