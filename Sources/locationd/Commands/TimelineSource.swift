import Foundation
import LocationState
import LocationTimeline

/// Where `timeline` and `stats` read the stays and trips of a range: the running daemon
/// (``DaemonOrFiles``), else the data directory's timeline, read only.
struct TimelineSource {
    let socket: String?
    let dataDirectory: DataDirectoryOption

    /// The entries of `range`.
    func entries(_ range: TimelineRange) throws(LocationError) -> [TimelineEntry] {
        try Self.entries(try lines(range))
    }

    /// The entries the STAY and TRIP `lines` hold.
    static func entries(_ lines: [String]) throws(LocationError) -> [TimelineEntry] {
        var entries: [TimelineEntry] = []
        for line in lines {
            guard let entry = TimelineEntry(jsonLine: line) else { throw DaemonOrFiles.unexpected(line) }
            entries.append(entry)
        }
        return entries
    }

    /// The STAY and TRIP lines of `range`: from the running daemon (``DaemonOrFiles``), else
    /// written from the timeline file as the daemon writes them (stays without a name named
    /// by ``PlaceNamesFile``), so that either prints the same.
    func lines(_ range: TimelineRange) throws(LocationError) -> [String] {
        let source = DaemonOrFiles(socket: socket, dataDirectory: dataDirectory)
        // The times, not the days: the daemon may count days in another zone.
        let argument = ["from": UTCCalendar.iso8601(range.start), "to": UTCCalendar.iso8601(range.end)]
        var lines: [String] = []
        let fallback = try source.ask("?TIMELINE=\(JSONLineEncoder().encodeFinite(argument));") {
            text throws(LocationError) in
            if text.hasPrefix(#"{"class":"TIMELINE""#) { return false }
            guard text.hasPrefix(#"{"class":"STAY""#) || text.hasPrefix(#"{"class":"TRIP""#) else {
                throw DaemonOrFiles.unexpected(text)
            }
            lines.append(text)
            return true
        }
        guard let fallback else { return lines }
        return try fallback.read { () throws(LocationError) in
            let store = try TimelineStore.openReadOnly(
                at: source.directory.appendingPathComponent(TimelineStore.fileName))
            let entries = try store.entries(from: range.start, to: range.end).map {
                $0.named(by: PlaceNamesFile.naming)
            }
            let stays = entries.compactMap { if case .stay(let stay) = $0 { stay } else { nil } }
            return try store.placeIndex(extra: stays).apply(to: entries).map(\.jsonString)
        }
    }
}
