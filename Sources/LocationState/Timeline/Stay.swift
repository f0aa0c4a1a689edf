import Foundation

/// A stay: the device remained within the stay distance of one place for at least the stay duration.
///
/// `start` and `end` are trackintel's `started_at` and `finished_at`: the time of the
/// stay's first fix, and the time of the first fix outside it (for an open stay, of
/// its latest fix). `latitude` and `longitude` are the mean of its fixes' coordinates.
public struct Stay: Sendable, Hashable, Codable {
    public var start: Date
    public var end: Date
    /// The centroid: mean latitude, mean longitude, degrees.
    public var latitude: Double
    public var longitude: Double
    /// The fixes' root-mean-square distance from the centroid, metres.
    public var radius: Double
    /// How many fixes the stay holds.
    public var fixes: Int
    /// Whether the device is still there (the stay may grow).
    public var isOpen: Bool
    /// What the place is called (the user's region that holds it, else the nearest populated
    /// place), looked up once when the stay is stored; nil when none is known.
    public var name: String?
    /// The place the stay is at: stays within 100 m of each other, over any time, are one
    /// place (``PlaceIdentity``); nil where the places were not asked.
    public var place: Int?

    public init(
        start: Date, end: Date, latitude: Double, longitude: Double, radius: Double, fixes: Int, isOpen: Bool = false,
        name: String? = nil
    ) {
        self.start = start
        self.end = end
        self.latitude = latitude
        self.longitude = longitude
        self.radius = radius
        self.fixes = fixes
        self.isOpen = isOpen
        self.name = name
    }

    /// How long the stay lasted (so far, when open), seconds.
    public var duration: Double { end.timeIntervalSince(start) }

    /// This stay continued by `later` (a stay at the same place): from this one's start
    /// to the later one's end, with the centroid and radius of all their fixes together.
    public func merged(with later: Stay) -> Stay {
        let total = Double(fixes + later.fixes)
        let share = Double(later.fixes) / total
        // The later centroid as an offset from this one, east and north in metres.
        let east = SphericalEarth.wrappedDegrees(later.longitude - longitude)
        let north = later.latitude - latitude
        let metresPerDegree = SphericalEarth.metresPerDegree
        let eastMetres = east * metresPerDegree * cos(latitude * .pi / 180)
        let northMetres = north * metresPerDegree
        let offsetSquared = eastMetres * eastMetres + northMetres * northMetres
        // Chan et al.'s pairwise update of the sum of squared distances from the mean.
        let sumOfSquares =
            radius * radius * Double(fixes) + later.radius * later.radius * Double(later.fixes)
            + offsetSquared * Double(fixes) * share
        return Stay(
            start: start, end: later.end,
            latitude: latitude + north * share,
            longitude: SphericalEarth.wrappedDegrees(longitude + east * share),
            radius: (sumOfSquares / total).squareRoot(),
            fixes: fixes + later.fixes, isOpen: later.isOpen, name: name ?? later.name)
    }
}
