/// What ``MotionTracker`` reports after a fix: the motion changed, or a stay or trip closed.
public enum TimelineEvent: Sendable, Hashable {
    case motion(Motion)
    case stayClosed(Stay)
    case tripClosed(Trip)
    /// A stay that was established (the motion said `stopped` since its start, and the trip
    /// that reached it closed with `to` = its start) is dropped by a gap (or a clock gone
    /// back), as trackintel drops it at a gap: it will never close, and the trip that
    /// reached it has no `to` any more. Carries the stay as it was at its last fix.
    case stayDropped(Stay)
}
