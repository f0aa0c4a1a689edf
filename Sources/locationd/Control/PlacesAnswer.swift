import Foundation
import LocationState
import LocationTimeline

/// `?PLACES`'s answer and `locationd places`'s reading: one PLACE object per place, most
/// time first, then `{"class":"PLACES","count":N}`.
struct PlacesAnswer: Codable, Equatable {
    var `class` = "PLACE"
    var id: Int
    var name: String?
    var label: String?
    var visits: Int
    var seconds: Double
    var first: String
    var last: String
    var lat: Double
    var lon: Double

    /// What a request asks: the list, or a place renamed first (nil: the user's name taken away).
    enum Request: Equatable, Sendable {
        case list
        case rename(id: Int, name: String?)
    }

    /// The longest name a user may give a place, in bytes.
    static let maxNameBytes = 200

    /// The answer's lines from `store` (every stay, with `pending`, the stays not stored yet),
    /// stays named by `naming` where they have no name, labels in `days`' zone.
    static func lines(
        _ request: Request, store: TimelineStore, pending: [Stay], naming: StayNaming?, days: LocalDays
    ) throws(LocationError) -> [String] {
        if case .rename(let id, let name) = request { try store.renamePlace(id, to: name, pending: pending) }
        let (stays, records) = try store.placedStays(extra: pending)
        let summaries = PlaceSummary.summaries(of: stays.map { $0.named(by: naming) }, records: records, days: days)
        return summaries.map { summary in
            ControlAnswers.line(
                PlacesAnswer(
                    id: summary.id, name: summary.name, label: summary.label, visits: summary.visits,
                    seconds: summary.seconds.rounded(), first: UTCCalendar.iso8601(summary.firstVisit),
                    last: UTCCalendar.iso8601(summary.lastVisit), lat: (summary.latitude * 1e7).rounded() / 1e7,
                    lon: (summary.longitude * 1e7).rounded() / 1e7))
        } + [#"{"class":"PLACES","count":\#(summaries.count)}"#]
    }

    /// A name as a user typed it: trimmed, empty meaning none; nil when it is too long or
    /// holds a control character.
    static func name(_ text: String) -> String?? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.utf8.count <= maxNameBytes,
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        return .some(trimmed.isEmpty ? nil : trimmed)
    }
}

extension TimelineRecorder {
    /// The places answer's lines for `request`, from the recorder's store and the stays its
    /// tracker holds open; after a rename, the motion takes the place's new name.
    func placeLines(_ request: PlacesAnswer.Request, days: LocalDays) throws(LocationError) -> [String] {
        guard let store else { throw .unavailable("the timeline is not stored by this daemon") }
        let pending = tracker.pendingEntries.compactMap { if case .stay(let stay) = $0 { stay } else { nil } }
        let lines = try PlacesAnswer.lines(request, store: store, pending: pending, naming: naming, days: days)
        if case .rename = request { placesRenamed() }
        return lines
    }
}
