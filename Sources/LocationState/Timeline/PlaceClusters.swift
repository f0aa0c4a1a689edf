import Foundation

/// Stays clustered into places as trackintel 1.4.2's `generate_locations(method="dbscan",
/// epsilon=100, num_samples=1, distance_metric="haversine")` clusters staypoints: with one
/// sample enough, every stay is a core point, so a place is a chain of stays each within
/// reach of the next (scikit-learn's DBSCAN on the haversine distance in radians,
/// `eps = epsilon / 6371000`, neighbours at that distance or nearer).
///
/// Reach is the true haversine distance. trackintel hands scikit-learn the points as (x, y),
/// that is (longitude, latitude), where its haversine reads (latitude, longitude): its
/// distance counts a north-south step times the cosine of the longitude, so near 90° E or W
/// every stay on the same meridian, from pole to pole, is one place. locationd measures what
/// trackintel means to; the conformance test hands trackintel the points in the order its
/// distance reads them (docs/timeline.md).
public struct PlaceClusters: Sendable {
    public let epsilon: Double
    private var latitudes: [Double] = []
    private var longitudes: [Double] = []
    private var parents: [Int] = []
    private var cells: [Cell: Members] = [:]
    /// A cell's side, degrees (of latitude, and of longitude): a cell's diagonal is at most
    /// epsilon, so the stays of one cell are one place without measuring them, and a stay
    /// at a place visited a thousand times is placed without measuring the thousand.
    private let side: Double

    private struct Cell: Hashable {
        let row: Int
        let column: Int
    }

    /// A cell's stays and the box around them.
    private struct Members {
        var stays: [Int]
        var south: Double
        var north: Double
        var west: Double
        var east: Double

        mutating func add(_ stay: Int, latitude: Double, longitude: Double) {
            stays.append(stay)
            (south, north) = (min(south, latitude), max(north, latitude))
            (west, east) = (min(west, longitude), max(east, longitude))
        }
    }

    public init(epsilon: Double = 100) {
        self.epsilon = epsilon
        side = epsilon / 2.squareRoot() * 0.999 / (6_371_000 * .pi / 180)
    }

    /// How many stays were added.
    public var count: Int { parents.count }

    /// Adds a stay's centroid; returns its index (the order of adding).
    @discardableResult
    public mutating func add(latitude: Double, longitude: Double) -> Int {
        let index = parents.count
        latitudes.append(latitude)
        longitudes.append(longitude)
        parents.append(index)
        let home = cell(latitude, longitude)
        if let members = cells[home] { union(index, members.stays[0]) }
        // Collected first: measuring while `parents` is borrowed would copy it at each union.
        for (cell, members) in cells(near: latitude, longitude) where cell != home {
            guard find(members.stays[0]) != find(index) else { continue }
            // The cell's stays are one place: one within reach joins it.
            if let other = members.stays.first(where: { reaches(latitude, longitude, latitudes[$0], longitudes[$0]) }) {
                union(index, other)
            }
        }
        // In place: a copy of the cell's stays for each stay added would make a busy place quadratic.
        let empty = Members(stays: [], south: latitude, north: latitude, west: longitude, east: longitude)
        cells[home, default: empty].add(index, latitude: latitude, longitude: longitude)
        return index
    }

    /// The stays added so far within reach of a point (without adding it).
    public func neighbours(latitude: Double, longitude: Double) -> [Int] {
        cells(near: latitude, longitude).flatMap { _, members in
            members.stays.filter { reaches(latitude, longitude, latitudes[$0], longitudes[$0]) }
        }
    }

    /// The cells that may hold a stay within reach of the point: two rows
    /// up and down, as many columns as a degree of longitude shrinks at the latitude nearest
    /// the pole among them, and only those whose box of stays comes within reach.
    private func cells(near latitude: Double, _ longitude: Double) -> [(Cell, Members)] {
        var found: [(Cell, Members)] = []
        let cell = self.cell(latitude, longitude)
        let nearPole = min(89.999, abs(latitude) + side * 3)
        let columns = min(Int((2.squareRoot() / cos(nearPole * .pi / 180)).rounded(.up)) + 1, columnCount / 2)
        for row in cell.row - 2...cell.row + 2 {
            for offset in -columns...columns {
                let column = ((cell.column + offset) % columnCount + columnCount) % columnCount
                guard let members = cells[Cell(row: row, column: column)] else { continue }
                let nearestLatitude = min(max(latitude, members.south), members.north)
                var nearestLongitude = longitude
                if abs(longitude - members.west) < 180, abs(longitude - members.east) < 180 {
                    nearestLongitude = min(max(longitude, members.west), members.east)
                }
                guard within(latitude, longitude, nearestLatitude, nearestLongitude, slack: 1.001) else { continue }
                found.append((Cell(row: row, column: column), members))
            }
        }
        return found
    }

    /// The index of the first stay added of the place that holds stay `index`.
    public mutating func place(of index: Int) -> Int { find(index) }

    /// ``place(of:)`` without shortening the way for the next: for a copy that must not change.
    func root(of index: Int) -> Int {
        var node = index
        while parents[node] != node { node = parents[node] }
        return node
    }

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

    /// Whether two stays are neighbours: scikit-learn's haversine distance (radians) at most epsilon's.
    func reaches(_ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double) -> Bool {
        within(latitude1, longitude1, latitude2, longitude2, slack: 1)
    }

    /// Whether two points are at most `slack` times epsilon apart.
    private func within(
        _ latitude1: Double, _ longitude1: Double, _ latitude2: Double, _ longitude2: Double, slack: Double
    ) -> Bool {
        let radians = Double.pi / 180
        let (lat1, lat2) = (latitude1 * radians, latitude2 * radians)
        let halfNorth = sin((lat2 - lat1) / 2)
        let halfEast = sin((longitude2 - longitude1) * radians / 2)
        let h = halfNorth * halfNorth + cos(lat1) * cos(lat2) * halfEast * halfEast
        return 2 * asin(min(1, h.squareRoot())) <= epsilon * slack / 6_371_000
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
