/// What ``MotionTracker`` reports after a fix: the motion changed, or a stay or trip closed.
public enum TimelineEvent: Sendable, Hashable {
    case motion(Motion)
    case stayClosed(Stay)
    case tripClosed(Trip)
}
