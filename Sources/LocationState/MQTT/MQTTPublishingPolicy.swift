import Foundation

/// Which fixes go out over MQTT: OwnTracks' move mode.
///
/// With no minimum interval every fix is published. With one, a fix is published
/// when at least `minimumInterval` passed since the last published one, or when it
/// is more than `minimumDistance` metres from it (0: distance never forces one).
/// Status changes are not fixes: they always go out, whatever the policy.
public struct MQTTPublishingPolicy: Sendable, Equatable {
    /// Seconds between two published fixes at most once; 0 publishes every fix.
    public var minimumInterval: Double
    /// Metres moved that publish a fix before the interval is over; 0 for none.
    public var minimumDistance: Double

    public init(minimumInterval: Double = 0, minimumDistance: Double = 0) {
        self.minimumInterval = minimumInterval
        self.minimumDistance = minimumDistance
    }

    /// Whether `fix`, arriving at `now`, is published, given the last published fix and when it was.
    ///
    /// Times are the fixes' own (`time`) when both have one, else the arrival times.
    public func shouldPublish(_ fix: Location, at now: Date, last: (fix: Location, at: Date)?) -> Bool {
        guard minimumInterval > 0, let last else { return true }
        let elapsed =
            if let time = fix.time, let lastTime = last.fix.time { time.timeIntervalSince(lastTime) } else {
                now.timeIntervalSince(last.at)
            }
        // A clock or a track that went backwards: publish rather than stay silent.
        if elapsed >= minimumInterval || elapsed < 0 { return true }
        guard minimumDistance > 0, let lat = fix.lat, let lon = fix.lon, let lastLat = last.fix.lat,
            let lastLon = last.fix.lon
        else { return false }
        let moved = Geodesy.distance(latitude1: lastLat, longitude1: lastLon, latitude2: lat, longitude2: lon)
        return moved > minimumDistance
    }
}
