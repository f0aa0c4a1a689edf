import Foundation
import LocationState

extension TimelineEntry {
    /// Reads a STAY or TRIP line as ``jsonString`` writes it; nil for any other line.
    ///
    /// A time is read as the middle of its millisecond, so that ``UTCCalendar/iso8601(_:)``,
    /// which truncates below the millisecond, writes it back as it was.
    public init?(jsonLine: some StringProtocol) {
        guard let line = try? JSONDecoder().decode(Line.self, from: Data(jsonLine.utf8)),
            let start = Self.time(line.start), let end = Self.time(line.end)
        else { return nil }
        let isOpen = line.open ?? false
        switch line.class {
        case "STAY":
            guard let latitude = line.lat, let longitude = line.lon, let radius = line.radius else { return nil }
            self = .stay(
                Stay(
                    start: start, end: end, latitude: latitude, longitude: longitude, radius: radius,
                    fixes: line.fixes, isOpen: isOpen, name: line.name))
            if case .stay(var stay) = self {
                stay.place = line.place
                self = .stay(stay)
            }
        case "TRIP":
            guard let distance = line.distance, let maxSpeed = line.maxSpeed else { return nil }
            let from = line.from.flatMap(Self.time)
            let to = line.to.flatMap(Self.time)
            guard (line.from == nil) == (from == nil), (line.to == nil) == (to == nil) else { return nil }
            var trip = Trip(
                start: start, end: end, from: from, to: to, distance: distance, maxSpeed: maxSpeed,
                fixes: line.fixes, isOpen: isOpen)
            (trip.fromName, trip.toName) = (line.from_name, line.to_name)
            self = .trip(trip)
        default:
            return nil
        }
    }

    private static func time(_ text: String) -> Date? {
        guard let date = UTCCalendar.parseISO8601(text) else { return nil }
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        return Date(timeIntervalSince1970: (milliseconds + 0.5) / 1000)
    }

    /// The members of both lines; `class` tells which must be there.
    private struct Line: Decodable {
        let `class`: String
        let start: String
        let end: String
        let fixes: Int
        let open: Bool?
        let lat: Double?
        let lon: Double?
        let radius: Double?
        let name: String?
        let place: Int?
        let distance: Double?
        let maxSpeed: Double?
        let from: String?
        let to: String?
        let from_name: String?
        let to_name: String?
    }
}
