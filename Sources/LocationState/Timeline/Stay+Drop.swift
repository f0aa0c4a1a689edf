import Foundation
import LocationState

extension Stay {
    /// The withdrawal of this stay, dropped by a gap (``TimelineEvent/stayDropped(_:)``), as a
    /// line of locationd's protocol (no newline): `{"class":"DROP","start":ISO8601,…}` with a
    /// STAY line's members. `start` names the stay, as the `to` of the trip that reached it
    /// did: no STAY line will come for it, and that trip reached no stay.
    public func appendDropJSON(to out: inout [UInt8]) {
        append(to: &out, opening: #"{"class":"DROP","start":""#)
    }

    /// The withdrawal as a line for people (no newline):
    /// `2026-11-23T07:00:00.000Z DROP 47.370000 8.540000 until 2026-11-23T07:20:00.000Z (20 min 0 s, 1200 fixes, dropped by a gap)`.
    public var dropText: String {
        "\(UTCCalendar.iso8601(start)) DROP " + String(format: "%.6f %.6f", latitude, longitude)
            + " until \(UTCCalendar.iso8601(end)) (\(TimelineEntry.duration(duration)), \(fixes) fixes, dropped by a gap)"
    }
}
