import Foundation

/// Stays clustered into places as trackintel 1.4.2's `generate_locations(method="dbscan",
/// epsilon=100, num_samples=1, distance_metric="haversine")` clusters staypoints: with one
/// sample enough, every stay is a core point, so a place is a chain of stays each within
/// reach of the next (scikit-learn's DBSCAN on the haversine distance in radians,
/// `eps = epsilon / 6371000`, neighbours at that distance or nearer).
///
/// Reach is trackintel's, quirk included: it hands scikit-learn the points as (x, y), that
/// is (longitude, latitude), where scikit-learn's haversine reads (latitude, longitude). So
/// the distance is the haversine formula with the two swapped: a north-south step counts
/// its degrees times the cosine of the longitude, an east-west step its degrees as they are.
/// At 47° N and 8° E two stays 100 m apart north to south are neighbours, east to west
/// only within 68 m (100 m times the cosine of the latitude). Matching it keeps the places
/// trackintel's, which is what they are checked against.
///
/// Incremental: ``add(latitude:longitude:)`` joins a new stay to every place that has a stay
/// within reach (merging them) in time proportional to the stays near it: stays are kept
/// in cells of about `epsilon` a side.
public struct PlaceClusters: Sendable {
    public let epsilon: Double
    private var latitudes: [Double] = []
    private var longitudes: [Double] = []
    private var parents: [Int] = []
    private var cells: [Cell: [Int]] = [:]
    /// The cell's side, degrees of latitude (and of longitude: a longitude row holds more
    /// cells' worth of stays near the poles, and more cells are searched there).
    private let side: Double

    private struct Cell: Hashable {
        let row: Int
        let column: Int
    }

    public init(epsilon: Double = 100) {
        self.epsilon = epsilon
        side = epsilon / (6_371_000 * .pi / 180)
    }

    /// How many stays were added.
    public var count: Int { parents.count }

    /// Adds a stay's centroid; returns its index (the order of adding).
    @discardableResult
    public mutating func add(latitude: Double, longitude: Double) -> Int {
        let index = parents.count
        let near = neighbours(latitude: latitude, longitude: longitude)
        latitudes.append(latitude)
        longitudes.append(longitude)
        parents.append(index)
        for other in near { union(index, other) }
        cells[cell(latitude, longitude), default: []].append(index)
        return index
    }

    /// The stays added so far within reach of a point (without adding it).
    public func neighbours(latitude: Double, longitude: Double) -> [Int] {
        let cell = self.cell(latitude, longitude)
        // A degree of latitude reaches as far as 1 / cos(longitude) cells (the swap above);
        // a degree of longitude one cell.
        let nearPole = min(89.999, abs(longitude) + side * 2)
        let rows = min(Int((1 / cos(nearPole * .pi / 180)).rounded(.up)) + 1, Int((180 / side).rounded(.up)))
        var found: [Int] = []
        for row in cell.row - rows...cell.row + rows {
            for offset in -2...2 {
                let column = ((cell.column + offset) % columnCount + columnCount) % columnCount
                for other in cells[Cell(row: row, column: column)] ?? []
                where reaches(latitude, longitude, latitudes[other], longitudes[other]) {
                    found.append(other)
                }
            }
        }
        return found
    }

    /// The index of the first stay added of the place that holds stay `index`.
    public mutating func place(of index: Int) -> Int { find(index) }

    /// The places: the indices of their stays, each place in the order its first stay was
    /// added, and the places in that order too.
    public mutating func places() -> [[Int]] {
        var byRoot: [Int: Int] = [:]
        var places: [[Int]] = []
        for index in parents.indices {
            let root = find(index)
            if let place = byRoot[root] {
                places[place].append(index)
            } else {
                byRoot[root] = places.count
                places.append([index])
            }
        }
        return places
    }

    private var columnCount: Int { Int((360 / side).rounded(.up)) }

    private func cell(_ latitude: Double, _ longitude: Double) -> Cell {
        Cell(row: Int((latitude / side).rounded(.down)), column: Int(((longitude + 180) / side).rounded(.down)))
    }

    /// Whether two stays are neighbours: scikit-learn's haversine distance (radians) of the
    /// points as trackintel gives them, longitude first, at most epsilon's.
    private func reaches(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Bool {
        let radians = Double.pi / 180
        // scikit-learn's "latitude" is trackintel's x, the longitude, and the other way round.
        let (first1, first2) = (longitude1 * radians, longitude2 * radians)
        let halfFirst = sin((first2 - first1) / 2)
        let halfSecond = sin((latitude2 - latitude1) * radians / 2)
        let h = halfFirst * halfFirst + cos(first1) * cos(first2) * halfSecond * halfSecond
        return 2 * asin(min(1, h.squareRoot())) <= epsilon / 6_371_000
    }

    /// The root of `index`'s tree, halving the path on the way.
    private mutating func find(_ index: Int) -> Int {
        var node = index
        while parents[node] != node {
            parents[node] = parents[parents[node]]
            node = parents[node]
        }
        return node
    }

    /// Joins two trees under the smaller root: a place's root is its first stay.
    private mutating func union(_ a: Int, _ b: Int) {
        let (rootA, rootB) = (find(a), find(b))
        guard rootA != rootB else { return }
        if rootA < rootB { parents[rootB] = rootA } else { parents[rootA] = rootB }
    }
}
