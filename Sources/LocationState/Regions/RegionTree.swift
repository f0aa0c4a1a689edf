/// A static R-tree over boxes, packed once with Sort-Tile-Recursive (STR), for "which
/// boxes contain this point" in O(log n) plus the answers.
///
/// Level 0 holds the boxes themselves in packed order; each node of level k + 1
/// covers ``fanout`` consecutive nodes of level k, so children need no pointers.
/// Boxes live in flat arrays of coordinates (struct of arrays), which keeps a query's
/// memory reads few and close together.
struct RegionTree: Sendable {
    /// Children per node.
    static let fanout = 16

    /// Per level, bottom up: minLat, minLon, maxLat, maxLon of each node, four in a row.
    private let levels: [[Double]]
    /// For each box of level 0, the payload it was built with.
    private let payloads: [Int32]

    /// Packs `boxes`, each with its payload (an index into the caller's array).
    init(_ entries: [(box: GeoBox, payload: Int)]) {
        let fanout = RegionTree.fanout
        // STR: sort by longitude centre, cut into vertical slices of about
        // sqrt(n / fanout) nodes, sort each slice by latitude centre.
        let count = entries.count
        var order = Array(0..<count)
        let lonCenter = entries.map { ($0.box.minLon + $0.box.maxLon) / 2 }
        let latCenter = entries.map { ($0.box.minLat + $0.box.maxLat) / 2 }
        order.sort { lonCenter[$0] < lonCenter[$1] }
        let leaves = (count + fanout - 1) / fanout
        let slices = max(1, Int(Double(leaves).squareRoot().rounded(.up)))
        let sliceSize = slices * fanout
        var start = 0
        while start < count {
            let end = min(count, start + sliceSize)
            order[start..<end].sort { latCenter[$0] < latCenter[$1] }
            start = end
        }
        var level: [Double] = []
        level.reserveCapacity(count * 4)
        var payloads: [Int32] = []
        payloads.reserveCapacity(count)
        for index in order {
            let box = entries[index].box
            level += [box.minLat, box.minLon, box.maxLat, box.maxLon]
            payloads.append(Int32(entries[index].payload))
        }
        var levels = [level]
        while level.count > 4 * 1 {
            let nodes = level.count / 4
            var parent: [Double] = []
            parent.reserveCapacity(((nodes + fanout - 1) / fanout) * 4)
            var first = 0
            while first < nodes {
                let last = min(nodes, first + fanout)
                var box = (Double.infinity, Double.infinity, -Double.infinity, -Double.infinity)
                for child in first..<last {
                    box.0 = min(box.0, level[4 * child])
                    box.1 = min(box.1, level[4 * child + 1])
                    box.2 = max(box.2, level[4 * child + 2])
                    box.3 = max(box.3, level[4 * child + 3])
                }
                parent += [box.0, box.1, box.2, box.3]
                first = last
            }
            levels.append(parent)
            level = parent
        }
        self.levels = levels
        self.payloads = payloads
    }

    /// Calls `body` with the payload of every box that contains the point.
    func forEach(containing lat: Double, _ lon: Double, _ body: (Int) -> Void) {
        guard let top = levels.last, !top.isEmpty else { return }
        let fanout = RegionTree.fanout
        // (level, node) pairs still to visit; the tree is at most a dozen levels deep.
        var stack: [(Int, Int)] = []
        stack.reserveCapacity(64)
        stack.append((levels.count - 1, 0))
        while let (depth, node) = stack.popLast() {
            levels[depth].withUnsafeBufferPointer { boxes in
                let base = 4 * node
                guard lat >= boxes[base], lon >= boxes[base + 1], lat <= boxes[base + 2], lon <= boxes[base + 3]
                else { return }
                if depth == 0 {
                    body(Int(payloads[node]))
                } else {
                    let childCount = levels[depth - 1].count / 4
                    for child in (node * fanout)..<min(childCount, node * fanout + fanout) {
                        stack.append((depth - 1, child))
                    }
                }
            }
        }
    }

    /// Boxes indexed.
    var count: Int { payloads.count }
}
