import LocationState

/// A static R-tree over boxes, packed once with Sort-Tile-Recursive (STR), for "which
/// boxes contain this point" in O(log n) plus the answers.
///
/// Level 0 holds the boxes themselves in packed order; each node of level k + 1
/// covers ``fanout`` consecutive nodes of level k, so children need no pointers.
/// Boxes live in flat arrays of coordinates (struct of arrays), which keeps a query's
/// memory reads few and close together.
package struct RegionTree: Sendable {
    /// Children per node.
    package static let fanout = 16

    /// Every level's boxes, bottom up, one after the other: minLat, minLon, maxLat,
    /// maxLon of each node, four in a row.
    private let boxes: [Double]
    /// Where each level's first node is in ``boxes`` (in nodes), and one past the last level.
    private let levelStart: [Int]
    /// For each box of level 0, the payload it was built with.
    private let payloads: [Int32]

    /// Packs `boxes`, each with its payload (an index into the caller's array).
    package init(_ entries: [(box: GeoBox, payload: Int)]) {
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
        var boxes = level
        var levelStart = [0]
        while level.count > 4 {
            levelStart.append(boxes.count / 4)
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
            boxes += parent
            level = parent
        }
        levelStart.append(boxes.count / 4)
        self.boxes = boxes
        self.levelStart = levelStart
        self.payloads = payloads
    }

    /// Calls `body` with the payload of every box that contains the point.
    @inline(__always)
    package func forEach(containing lat: Double, _ lon: Double, _ body: (Int) -> Void) {
        guard !payloads.isEmpty else { return }
        let fanout = RegionTree.fanout
        let levels = levelStart.count - 1
        boxes.withUnsafeBufferPointer { boxes in
            levelStart.withUnsafeBufferPointer { levelStart in
                // Nodes still to visit, as (level, node in level); depth-first, so at
                // most `fanout` waiting per level.
                @inline(__always) func holds(_ node: Int) -> Bool {
                    let base = 4 * node
                    return lat >= boxes[base] && lon >= boxes[base + 1] && lat <= boxes[base + 2]
                        && lon <= boxes[base + 3]
                }
                guard holds(levelStart[levels - 1]) else { return }
                if levels == 1 {
                    body(Int(payloads[0]))
                    return
                }
                // Nodes that hold the point and whose children are still to test, as
                // (level, node in level); depth first, so at most `fanout` per level wait.
                withUnsafeTemporaryAllocation(of: (Int32, Int32).self, capacity: fanout * levels + 1) { stack in
                    stack[0] = (Int32(levels - 1), 0)
                    var top = 1
                    while top > 0 {
                        top -= 1
                        let (depth, node) = (Int(stack[top].0), Int(stack[top].1))
                        let below = levelStart[depth - 1]
                        let childCount = levelStart[depth] - below
                        let first = node * fanout
                        for child in first..<min(childCount, first + fanout) where holds(below + child) {
                            if depth == 1 {
                                body(Int(payloads[child]))
                            } else {
                                stack[top] = (Int32(depth - 1), Int32(child))
                                top += 1
                            }
                        }
                    }
                }
            }
        }
    }

    /// Boxes indexed.
    package var count: Int { payloads.count }
}
