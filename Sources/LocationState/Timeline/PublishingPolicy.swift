import Foundation
import LocationState

/// Which fixes go out, over MQTT and to the uplinks: OwnTracks' move mode, and a
/// heartbeat while still.
///
/// While moving, while the motion is unknown, or without motion tracking: with no
/// minimum interval every fix is published; with one, a fix is published when at least
/// `minimumInterval` passed since the last published one, or when it is more than
/// `minimumDistance` metres from it (0: distance never forces one).
///
/// While stopped, the stop itself is published once (by the publisher, when the motion
/// changes) and then a fix only when `stoppedInterval` passed since the last one
/// published: a parked device sends a heartbeat, not a stream. The same holds for a
/// fix that is *still* before a stop is recognised (the stay duration has not passed
/// yet, or the device only waits at a light): the receiver's speed is below
/// ``stillSpeed`` and the fix is within ``stillDistance`` of the last one published. A
/// fix that moves, faster or farther, goes out at once. `stoppedInterval` 0 turns both
/// off. Status changes are not fixes: they always go out, whatever the policy.
public struct PublishingPolicy: Sendable, Equatable {
    /// Seconds between two published fixes at most once; 0 publishes every fix.
    public var minimumInterval: Double
    /// Metres moved that publish a fix before the interval is over; 0 for none.
    public var minimumDistance: Double
    /// Seconds between two fixes published while stopped (the heartbeat, 15 min by
    /// default); 0 publishes them as while moving.
    public var stoppedInterval: Double

    /// Below this receiver speed (m/s) a fix is still: a slow walk is about 1 m/s, while a
    /// parked receiver's speed stays within a few tenths.
    public static let stillSpeed = 0.7
    /// Within this many metres of the last fix published a still fix adds nothing: a
    /// parked receiver's jitter and multipath jumps stay inside it.
    public static let stillDistance = 50.0

    public init(minimumInterval: Double = 0, minimumDistance: Double = 0, stoppedInterval: Double = 900) {
        self.minimumInterval = minimumInterval
        self.minimumDistance = minimumDistance
        self.stoppedInterval = stoppedInterval
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
        if stoppedInterval > 0, motion?.stoppedSince != nil || isStill(fix, after: last.fix) {
            return elapsed >= stoppedInterval
        }
        guard minimumInterval > 0, elapsed < minimumInterval else { return true }
        guard minimumDistance > 0, let moved = Self.distance(fix, last.fix) else { return false }
        return moved > minimumDistance
    }

    /// Whether `fix` is still: a receiver speed below ``stillSpeed``, within
    /// ``stillDistance`` of `last`. A fix without a speed is never still.
    package func isStill(_ fix: Location, after last: Location) -> Bool {
        guard let speed = fix.speed, speed.isFinite, speed < Self.stillSpeed,
            let moved = Self.distance(fix, last)
        else { return false }
        return moved < Self.stillDistance
    }

    /// Metres between two fixes, when both have a position.
    private static func distance(_ fix: Location, _ other: Location) -> Double? {
        guard let lat = fix.lat, let lon = fix.lon, let otherLat = other.lat, let otherLon = other.lon else {
            return nil
        }
        return Geodesy.distance(latitude1: otherLat, longitude1: otherLon, latitude2: lat, longitude2: lon)
    }
}

extension PublishingPolicy {
    /// Applies one of the policy's settings, `PREFIX-min-interval`, `PREFIX-min-distance` or
    /// `PREFIX-stopped-interval` (`mqtt-…`, `uplink-…`): the same keys, units and checks
    /// wherever the policy is used.
    ///
    /// - Throws: ``LocationError/usage(_:)`` naming `origin` for a value it cannot use, or
    ///   for another key.
    public mutating func apply(key: String, value: String, origin: String) throws(LocationError) {
        if key.hasSuffix("-min-interval") {
            minimumInterval = try Self.seconds(value, name: key, origin: origin)
        } else if key.hasSuffix("-min-distance") {
            guard let metres = Double(value.hasSuffix("m") ? String(value.dropLast()) : value), metres >= 0,
                metres.isFinite
            else { throw .usage("\(origin): \(key) must be metres, 0 or more, not \(value.quotedForMessage)") }
            minimumDistance = metres
        } else if key.hasSuffix("-stopped-interval") {
            stoppedInterval = try Self.seconds(value, name: key, origin: origin)
        } else {
            throw .usage("\(origin): \(key) is not a publishing policy setting")
        }
    }

    /// Seconds, with an optional unit: `90`, `90s`, `15m`, `2h`, `7d`.
    public static func seconds(_ value: String, name: String, origin: String) throws(LocationError) -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(value)
        var unit = 1.0
        if let last = number.last, let factor = units[last] {
            unit = factor
            number = number.dropLast()
        }
        guard let amount = Double(number), amount >= 0, (amount * unit).isFinite else {
            throw .usage(
                "\(origin): \(name) must be a duration such as 30s, 15m, 2h or 7d, not \(value.quotedForMessage)")
        }
        return amount * unit
    }

}
