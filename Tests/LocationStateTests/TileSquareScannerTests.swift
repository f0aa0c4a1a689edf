import LocationTestSupport
import Testing

@testable import LocationState

/// The streaming max-square scanner against a brute force over every block.
@Suite(.timeLimit(.minutes(10)))
struct TileSquareScannerTests {
    /// The largest block by trying every origin and size; ties to the south-east tile first in (y, x).
    private static func bruteForce(_ tiles: Set<Tile>, zoom: Int) -> TileSquare? {
        var best: TileSquare?
        for tile in tiles {
            var size = 1
            while (0..<size).allSatisfy({ dx in
                (0..<size).allSatisfy { dy in tiles.contains(Tile(unchecked: zoom, x: tile.x + dx, y: tile.y + dy)) }
            }) {
                let candidate = TileSquare(origin: tile, size: size)
                let end = (tile.y + size - 1, tile.x + size - 1)
                if let current = best {
                    let currentEnd = (current.origin.y + current.size - 1, current.origin.x + current.size - 1)
                    if size > current.size || (size == current.size && end < currentEnd) { best = candidate }
                } else {
                    best = candidate
                }
                size += 1
            }
        }
        return best
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func agreesWithABruteForceOnRandomSets(seed: UInt64) {
        var state = seed &* 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        var tiles = Set<Tile>()
        let density = 40 + Int(seed % 5) * 12  // percent
        for x in 100..<124 {
            for y in 200..<220 where Int(next() % 100) < density {
                tiles.insert(Tile(unchecked: 12, x: x, y: y))
            }
        }
        var scanner = TileSquare.Scanner()
        for tile in tiles.sorted(by: { ($0.x, $0.y) < ($1.x, $1.y) }) { scanner.add(tile) }
        #expect(scanner.largest == Self.bruteForce(tiles, zoom: 12))
        #expect(TileSquare.largest(in: tiles) == Self.bruteForce(tiles, zoom: 12))
    }

    @Test func tilesOutOfOrderAreIgnoredNotFatal() {
        var scanner = TileSquare.Scanner()
        scanner.add(Tile(unchecked: 12, x: 5, y: 5))
        scanner.add(Tile(unchecked: 12, x: 5, y: 5))
        scanner.add(Tile(unchecked: 12, x: 4, y: 9))
        scanner.add(Tile(unchecked: 13, x: 6, y: 9))
        #expect(scanner.largest == TileSquare(origin: Tile(unchecked: 12, x: 5, y: 5), size: 1))
    }
}
