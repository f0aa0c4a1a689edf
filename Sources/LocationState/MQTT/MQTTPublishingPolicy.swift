import Foundation

/// Which fixes go out over MQTT: OwnTracks' move mode while moving, its significant
/// changes while not.
///
/// While moving (or without motion tracking), with no minimum interval every fix is
/// published; with one, a fix is published when at least `minimumInterval` passed since
/// the last published one, or when it is more than `minimumDistance` metres from it (0:
/// distance never forces one). While stopped, the stop itself is published once (by the
/// publisher, when the motion changes) and then a fix only when `stoppedInterval` passed
/// since the last one published: a parked device sends a heartbeat, not a stream. While
/// the motion is unknown (after a start or a long gap, until the device has either
/// stayed or left), a fix is published when it is the first, when `stoppedInterval`
/// passed, or when it is more than `stayDistance` from the last one published (a
/// departure). `stoppedInterval` 0 turns this off: every state then follows the move
/// mode. Status changes are not fixes: they always go out, whatever the policy.
public struct MQTTPublishingPolicy: Sendable, Equatable {
    /// Seconds between two published fixes at most once; 0 publishes every fix.
    public var minimumInterval: Double
    /// Metres moved that publish a fix before the interval is over; 0 for none.
    public var minimumDistance: Double
    /// Seconds between two fixes published while stopped or not known to move (the
    /// heartbeat, 15 min by default); 0 publishes them as while moving.
    public var stoppedInterval: Double
    /// Metres from the last published fix that publish one while the motion is unknown:
    /// the motion's stay distance.
    public var stayDistance: Double

    public init(
        minimumInterval: Double = 0, minimumDistance: Double = 0, stoppedInterval: Double = 900,
        stayDistance: Double = 100
    ) {
        self.minimumInterval = minimumInterval
        self.minimumDistance = minimumDistance
        self.stoppedInterval = stoppedInterval
        self.stayDistance = stayDistance
    }

    /// Whether `fix`, arriving at `now` while the device's motion is `motion` (nil: not
    /// tracked), is published, given the last published fix and when it was.
    ///
    /// Times are the fixes' own (`time`) when both have one, else the arrival times.
    public func shouldPublish(
        _ fix: Location, at now: Date, last: (fix: Location, at: Date)?, motion: Motion? = nil
    ) -> Bool {
        guard let last else { return true }
        let elapsed =
            if let time = fix.time, let lastTime = last.fix.time { time.timeIntervalSince(lastTime) } else {
                now.timeIntervalSince(last.at)
            }
        // A clock or a track that went backwards: publish rather than stay silent.
        if elapsed < 0 { return true }
        switch motion {
        case .stopped? where stoppedInterval > 0:
            return elapsed >= stoppedInterval
        case .unknown? where stoppedInterval > 0:
            return elapsed >= stoppedInterval || Self.distance(fix, last.fix).map { $0 > stayDistance } ?? true
        default:
            guard minimumInterval > 0, elapsed < minimumInterval else { return true }
            guard minimumDistance > 0, let moved = Self.distance(fix, last.fix) else { return false }
            return moved > minimumDistance
        }
    }

    /// Metres between two fixes, when both have a position.
    private static func distance(_ fix: Location, _ other: Location) -> Double? {
        guard let lat = fix.lat, let lon = fix.lon, let otherLat = other.lat, let otherLon = other.lon else {
            return nil
        }
        return Geodesy.distance(latitude1: otherLat, longitude1: otherLon, latitude2: lat, longitude2: lon)
    }
}
