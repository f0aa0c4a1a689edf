import Foundation
import LocationState
import LocationTimeline

/// `?ODOMETER`'s answer, from the daemon's timeline or its file:
/// `{"class":"ODOMETER","at":…,"km":…,"setAt":…,"setKm":…}`, the reading at `at` (now, at
/// the last fix, without one) and the setting it counts from (absent when it was never set).
struct OdometerAnswer: Codable, Equatable {
    var `class` = "ODOMETER"
    /// When the reading was asked for; absent for the reading now.
    var at: String?
    var km: Double
    var setAt: String?
    var setKm: Double?

    /// What a request asks: the reading now, at a time, or a new setting (kilometres).
    enum Request: Equatable, Sendable {
        case now
        case at(Date)
        case set(kilometres: Double)
    }

    /// Answers `request` from `store` and `tracker` (the daemon's live one, or the one
    /// stored with the file): a setting is stored first, then read back as the reading now.
    static func answer(
        _ request: Request, store: TimelineStore, tracker: MotionTracker?, now: Date = Date()
    ) throws(LocationError) -> OdometerAnswer {
        let openTrip = tracker?.openTrip
        if case .set(let kilometres) = request {
            try store.setOdometer(
                .setting(metres: kilometres * 1000, openTrip: openTrip, lastFix: tracker?.lastFixTime, now: now))
        }
        let odometer = try store.odometer()
        var answer = OdometerAnswer(
            km: 0, setAt: odometer.setAt.map(UTCCalendar.iso8601),
            setKm: odometer.setAt.map { _ in kilometres(metres: odometer.setMetres) })
        if case .at(let time) = request {
            answer.at = UTCCalendar.iso8601(time)
            answer.km = kilometres(metres: try store.odometer(at: time))
        } else {
            answer.km = kilometres(metres: try store.odometerNow(openTrip: openTrip))
        }
        return answer
    }

    /// Kilometres to the metre, so that JSON shows no binary noise.
    private static func kilometres(metres: Double) -> Double { metres.rounded() / 1000 }

    /// `KM` as a user typed it for a setting; nil when it is not a number of kilometres from
    /// 0 to ``Odometer/maxKilometres``.
    static func kilometres(_ text: String) -> Double? {
        guard text.utf8.count <= 32, let value = Double(text) else { return nil }
        return kilometres(value)
    }

    /// `value` when it is a number of kilometres that can be set.
    static func kilometres(_ value: Double) -> Double? {
        value.isFinite && value >= 0 && value <= Odometer.maxKilometres ? value : nil
    }
}
