import Foundation
import LocationState
import LocationTimeline

/// Motion, stays and trips over MQTT (docs/mqtt.md): the motion retained on
/// `LOCATIOND_TOPIC/motion`, each stay and trip as it closes on `/timeline`, today's distance
/// retained on `/distance`, in locationd's JSON lines (`{"class":"MOTION",…}`,
/// `{"class":"STAY",…}`, `{"class":"TRIP",…}`, and `{"class":"DROP",…}` for a stay a gap dropped).
extension MQTTPublisher {
    /// A new motion: retained on the motion topic when it is another motion (a stop at
    /// another place, not a moved centroid) or the stop's place was renamed; at a new stop,
    /// the latest fix goes out once,
    /// whatever the policy, unless it was the last one published. On ``queue``.
    package func publish(motion new: Motion, at now: Date = Date()) {
        let old = motion
        motion = new
        let sameMotion = old.map { $0.isSameKind(as: new) } ?? false
        guard !sameMotion || old?.placeName != new.placeName else { return }
        enqueue(topic: topics.motion, payload: Array(new.jsonString.utf8), retain: true, at: now)
        // A stop renamed is no new stop: its fix went out when it began.
        if case .stopped = new, !sameMotion, let fix = latestFix, fix != lastPublished?.fix {
            publishLocation(fix, at: now)
        }
    }

    /// A stay or trip that closed, or a stay dropped, on the timeline topic (not retained: an event). On ``queue``.
    package func publish(timeline event: TimelineEvent, at now: Date = Date()) {
        switch event {
        case .motion: return
        case .stayClosed, .tripClosed, .stayDropped:
            enqueue(topic: topics.timeline, payload: Array(event.jsonString.utf8), retain: false, at: now)
        }
    }

    /// Today's distance (`{"day":"2026-11-25","distance":1234.5}`, metres), retained on the
    /// distance topic. On ``queue``.
    package func publish(distance: DayDistance, at now: Date = Date()) {
        distanceDayEnd = distance.end
        struct Payload: Encodable {
            let day: String
            let distance: Double
        }
        let rounded = (distance.metres * 10).rounded() / 10
        guard let payload = try? JSONLineEncoder().encode(Payload(day: distance.day, distance: rounded)) else { return }
        enqueue(topic: topics.distance, payload: Array(payload.utf8), retain: true, at: now)
    }

}
