/// A motion state in an Overland location's `motion` array: the values the Overland app
/// takes from the phone's motion coprocessor, and that Dawarich keeps as the point's
/// motion data.
public enum OverlandMotion: String, Sendable, Hashable, CaseIterable {
    case driving
    case walking
    case running
    case cycling
    case stationary
}
