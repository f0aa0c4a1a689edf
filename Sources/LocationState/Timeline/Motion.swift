import Foundation

/// What the device is doing: moving, stopped at a place, or not known.
///
/// Derived from the fixes by ``MotionTracker``: `stopped` once the fixes have stayed
/// within the stay distance of a stay's first fix for the stay duration, `moving` once
/// they have left it before that, `unknown` before either and after a gap longer than
/// the stay gap.
public enum Motion: Sendable, Hashable, Codable {
    case unknown
    case moving
    /// Stopped since the stay's first fix, at the stay's centroid as it was when the
    /// stay was recognised (``MotionTracker/openStay`` has the running centroid), and the
    /// place's name when the daemon knows it (``TimelineRecorder`` names it; the tracker never does).
    case stopped(since: Date, latitude: Double, longitude: Double, name: String? = nil)

    /// `unknown`, `moving` or `stopped`: the `motion` member of the JSON.
    public var name: String {
        switch self {
        case .unknown: "unknown"
        case .moving: "moving"
        case .stopped: "stopped"
        }
    }

    /// Since when the device is stopped; nil unless stopped.
    public var stoppedSince: Date? {
        if case .stopped(let since, _, _, _) = self { since } else { nil }
    }

    /// The name of the place the device is stopped at; nil unless stopped at a named place.
    public var placeName: String? {
        if case .stopped(_, _, _, let name) = self { name } else { nil }
    }

    /// This motion with the place it is stopped at named `name` (unchanged unless stopped).
    public func named(_ name: String?) -> Motion {
        guard case .stopped(let since, let latitude, let longitude, _) = self else { return self }
        return .stopped(since: since, latitude: latitude, longitude: longitude, name: name)
    }

    /// Whether this is the same kind of motion as `other` (stopped at the same stay counts as the same).
    package func isSameKind(as other: Motion) -> Bool {
        switch (self, other) {
        case (.unknown, .unknown), (.moving, .moving): true
        case (.stopped(let since, _, _, _), .stopped(let otherSince, _, _, _)): since == otherSince
        default: false
        }
    }
}
