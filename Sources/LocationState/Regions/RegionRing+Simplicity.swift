import LocationFormats

extension RegionRing {
    /// Most segment pairs the self-intersection check compares in one ring before it
    /// gives up: ordinary rings, even of a million vertices, need a small fraction.
    package static let comparisonBudget = 200_000_000

    /// Throws when two of the ring's own edges cross or touch, other than neighbours at
    /// their shared vertex.
    ///
    /// A sweep along longitude: edges sorted by their western end, each compared only
    /// with the earlier edges that still reach its longitude and overlap it in
    /// latitude. O(n log n) for the rings regions are made of; a pathological ring
    /// whose edges all overlap in longitude is refused once ``comparisonBudget``
    /// comparisons are spent, rather than checked for minutes.
    package func checkSimple() throws(RegionFileProblem) {
        let edges = realEdges
        let closed = !isPolarCap
        var westOf = [Double](repeating: 0, count: edges)
        var eastOf = [Double](repeating: 0, count: edges)
        for i in 0..<edges {
            westOf[i] = min(lons[i], lons[i + 1])
            eastOf[i] = max(lons[i], lons[i + 1])
        }
        let order = (0..<edges).sorted { westOf[$0] < westOf[$1] }
        var active: [Int] = []
        var comparisons = 0
        for i in order {
            let west = westOf[i]
            active.removeAll { eastOf[$0] < west }
            let south = min(lats[i], lats[i + 1])
            let north = max(lats[i], lats[i + 1])
            for j in active {
                comparisons += 1
                if max(lats[j], lats[j + 1]) < south || min(lats[j], lats[j + 1]) > north { continue }
                if edgesMeet(i, j, edges: edges, closed: closed) {
                    let (a, b) = (min(i, j), max(i, j))
                    throw RegionFileProblem(
                        "a ring intersects itself: edge \(a + 1) ([\(lons[a]), \(lats[a])] to [\(lons[a + 1]), \(lats[a + 1])]) meets edge \(b + 1) ([\(lons[b]), \(lats[b])] to [\(lons[b + 1]), \(lats[b + 1])])"
                    )
                }
            }
            guard comparisons <= RegionRing.comparisonBudget else {
                throw RegionFileProblem(
                    "a ring of \(edges) edges is too convoluted to check for self-intersections; simplify it")
            }
            active.append(i)
        }
    }

    /// Whether edges `i` and `j` share a point they should not.
    private func edgesMeet(_ i: Int, _ j: Int, edges: Int, closed: Bool) -> Bool {
        let p1 = (lons[i], lats[i]), p2 = (lons[i + 1], lats[i + 1])
        let p3 = (lons[j], lats[j]), p4 = (lons[j + 1], lats[j + 1])
        let (low, high) = (min(i, j), max(i, j))
        let neighbours = high - low == 1 || (closed && low == 0 && high == edges - 1)
        if neighbours {
            // They share one vertex; they meet elsewhere only when they fold back on
            // each other along one line (a spike).
            let shared: (Double, Double)
            let a: (Double, Double)
            let b: (Double, Double)
            if high - low == 1 {
                shared = (lons[high], lats[high])
                a = (lons[low], lats[low])
                b = (lons[high + 1], lats[high + 1])
            } else {
                shared = (lons[0], lats[0])
                a = (lons[1], lats[1])
                b = (lons[edges - 1], lats[edges - 1])
            }
            guard Self.orientation(a, shared, b) == 0 else { return false }
            return (a.0 - shared.0) * (b.0 - shared.0) + (a.1 - shared.1) * (b.1 - shared.1) > 0
        }
        let d1 = Self.orientation(p3, p4, p1)
        let d2 = Self.orientation(p3, p4, p2)
        let d3 = Self.orientation(p1, p2, p3)
        let d4 = Self.orientation(p1, p2, p4)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        if d1 == 0, Self.within(p1, p3, p4) { return true }
        if d2 == 0, Self.within(p2, p3, p4) { return true }
        if d3 == 0, Self.within(p3, p1, p2) { return true }
        if d4 == 0, Self.within(p4, p1, p2) { return true }
        return false
    }

    /// The sign of the turn a → b → c: positive counter-clockwise, 0 collinear.
    private static func orientation(_ a: (Double, Double), _ b: (Double, Double), _ c: (Double, Double)) -> Double {
        (b.0 - a.0) * (c.1 - a.1) - (b.1 - a.1) * (c.0 - a.0)
    }

    /// Whether `p`, collinear with `a` and `b`, lies between them.
    private static func within(_ p: (Double, Double), _ a: (Double, Double), _ b: (Double, Double)) -> Bool {
        p.0 >= min(a.0, b.0) && p.0 <= max(a.0, b.0) && p.1 >= min(a.1, b.1) && p.1 <= max(a.1, b.1)
    }
}
