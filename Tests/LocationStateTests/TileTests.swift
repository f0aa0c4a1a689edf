import Foundation
import LocationTestSupport
import Testing

@testable import LocationState

/// Expected tiles worked out with the OpenStreetMap wiki formula in python3
/// (`x = floor(n·(lon+180)/360)`, `y = floor(n·(1 − ln(tan φ + sec φ)/π)/2)`, `n = 2^z`),
/// independently of the code under test.
@Test(
    .timeLimit(.minutes(5)),
    arguments: [
        (0.0, 0.0, 0, 0, 0),
        (0.0, 0.0, 1, 1, 1),  // the equator and the prime meridian are tile edges: the south-east tile
        (0.0001, 0.0001, 1, 1, 0),
        (-0.0001, -0.0001, 1, 0, 1),
        (52.5163, 13.3777, 14, 8800, 5373),  // Brandenburg Gate
        (52.5163, 13.3777, 17, 70406, 42987),
        (52.5163, 13.3777, 19, 281626, 171951),
        (-33.8568, 151.2153, 19, 482367, 314600),  // Sydney Opera House
        (40.6892, -74.0445, 17, 38577, 49291),  // Statue of Liberty
        (51.4779, -0.0015, 19, 262141, 174408),  // Greenwich, just west of the meridian
        (71.171, 25.7837, 17, 74923, 28050),  // North Cape
        (-77.8419, 166.6863, 17, 126224, 112256),  // McMurdo
    ] as [(Double, Double, Int, Int, Int)])
func knownPointsFallInKnownTiles(latitude: Double, longitude: Double, zoom: Int, x: Int, y: Int) {
    #expect(Tile(latitude: latitude, longitude: longitude, zoom: zoom) == Tile(zoom: zoom, x: x, y: y))
}

@Test(
    .timeLimit(.minutes(5)),
    arguments: [
        (0.0, 180.0, 14, 0, 8192),  // 180° E is 180° W: the first column
        (0.0, -180.0, 14, 0, 8192),
        (0.0, 179.9999, 14, 16383, 8192),
        (0.0, -179.9999, 14, 0, 8192),
        (0.0, 540.0, 3, 0, 4),  // wrapped: 540° is 180°
        (0.0, -190.0, 3, 7, 4),  // wrapped: -190° is 170°
    ] as [(Double, Double, Int, Int, Int)])
func longitudeWrapsAtTheAntimeridian(latitude: Double, longitude: Double, zoom: Int, x: Int, y: Int) {
    #expect(Tile(latitude: latitude, longitude: longitude, zoom: zoom) == Tile(zoom: zoom, x: x, y: y))
}

@Test(
    .timeLimit(.minutes(5)),
    arguments: [
        (89.9, 0.0, 14, 8192, 0),  // beyond the Web Mercator limit: clamped to the first row
        (90.0, 0.0, 19, 262144, 0),
        (-89.9, 0.0, 14, 8192, 16383),  // clamped to the last row
        (-90.0, 0.0, 19, 262144, 524287),
        (85.05, 10.0, 10, 540, 0),  // just inside the limit
        (-85.05, 10.0, 10, 540, 1023),
    ] as [(Double, Double, Int, Int, Int)])
func latitudeIsClampedNearThePoles(latitude: Double, longitude: Double, zoom: Int, x: Int, y: Int) {
    #expect(Tile(latitude: latitude, longitude: longitude, zoom: zoom) == Tile(zoom: zoom, x: x, y: y))
}

@Test(.timeLimit(.minutes(10))) func boundsAreTheTileEdges() throws {
    // python3: lat = degrees(atan(sinh(pi·(1 − 2y/n)))), lon = x/n·360 − 180, for 14/8800/5373 and 14/8801/5374.
    let bounds = try #require(Tile(zoom: 14, x: 8800, y: 5373)).bounds
    #expect(abs(bounds.maxLat - 52.522905940278065) < 1e-12)
    #expect(abs(bounds.minLat - 52.50953477032728) < 1e-12)
    #expect(bounds.minLon == 13.359375)
    #expect(bounds.maxLon == 13.38134765625)

    let world = try #require(Tile(zoom: 0, x: 0, y: 0)).bounds
    #expect(abs(world.maxLat - Tile.maxLatitude) < 1e-12)
    #expect(abs(world.minLat + Tile.maxLatitude) < 1e-12)
    #expect(world.minLon == -180 && world.maxLon == 180)
}

@Test(
    .timeLimit(.minutes(5)),
    arguments: [(-1, 0, 0), (23, 0, 0), (0, 1, 0), (0, 0, -1), (3, 8, 0), (3, 0, 8)] as [(Int, Int, Int)])
func impossibleTilesAreRejected(zoom: Int, x: Int, y: Int) {
    #expect(Tile(zoom: zoom, x: x, y: y) == nil)
}

@Test(.timeLimit(.minutes(10))) func descriptionIsTheTilePath() throws {
    #expect(try #require(Tile(zoom: 17, x: 70406, y: 42987)).description == "17/70406/42987")
}

@Test(.timeLimit(.minutes(10))) func aSegmentAlongAParallelCrossesEveryColumnBetween() {
    // 2 km east of the Brandenburg Gate; python3 puts the end in column 70417 at zoom 17.
    let start = TilePoint(latitude: 52.5163, longitude: 13.3777, zoom: 17)
    let end = TilePoint(latitude: 52.5163, longitude: 13.40723, zoom: 17)
    let crossings = start.crossings(to: end)
    #expect(crossings.map(\.tile) == (70406...70417).map { Tile(zoom: 17, x: $0, y: 42987)! })
    #expect(crossings.first?.enter == 0)
    #expect(crossings.last?.exit == 1)
    for (before, after) in zip(crossings, crossings.dropFirst()) {
        #expect(before.exit == after.enter)
        #expect(before.enter <= before.exit)
    }
}

@Test(.timeLimit(.minutes(10))) func aSegmentAcrossTheAntimeridianTakesTheShortWay() {
    let start = TilePoint(latitude: 10, longitude: 179.99, zoom: 10)
    let end = TilePoint(latitude: 10, longitude: -179.99, zoom: 10)
    #expect(start.crossings(to: end).map(\.tile) == [Tile(zoom: 10, x: 1023, y: 483)!, Tile(zoom: 10, x: 0, y: 483)!])
    #expect(end.crossings(to: start).map(\.tile) == [Tile(zoom: 10, x: 0, y: 483)!, Tile(zoom: 10, x: 1023, y: 483)!])
}

/// Every tile that a dense sampling of the line touches is crossed, consecutive
/// tiles share an edge, and nothing is crossed twice.
@Test(
    .timeLimit(.minutes(5)),
    arguments: [
        (52.5163, 13.3777, 52.4999, 13.4102, 17),
        (52.5163, 13.3777, 52.5300, 13.3500, 16),
        (-33.85, 151.2, -33.90, 151.25, 15),
        (60.0, 179.95, 60.02, -179.97, 15),
        (84.9, -20.0, 85.3, -19.0, 12),
        (0.0, 0.0, 0.01, 0.01, 14),  // through a tile corner
    ] as [(Double, Double, Double, Double, Int)])
func diagonalSegmentsAreCoveredWithoutGaps(
    fromLatitude: Double, fromLongitude: Double, toLatitude: Double, toLongitude: Double, zoom: Int
) {
    let start = TilePoint(latitude: fromLatitude, longitude: fromLongitude, zoom: zoom)
    let end = TilePoint(latitude: toLatitude, longitude: toLongitude, zoom: zoom)
    let crossed = start.crossings(to: end).map(\.tile)
    #expect(Set(crossed).count == crossed.count)
    #expect(crossed.first == start.tile && crossed.last == end.tile)
    let count = 1 << zoom
    for (a, b) in zip(crossed, crossed.dropFirst()) {
        let dx = min((a.x - b.x + count) % count, (b.x - a.x + count) % count)
        #expect(dx + abs(a.y - b.y) == 1, "\(a) and \(b) do not share an edge")
    }
    // Sample in the tile space the traversal walks: the short way round, then wrapped.
    var endX = end.x
    if endX - start.x > Double(count) / 2 { endX -= Double(count) }
    if start.x - endX > Double(count) / 2 { endX += Double(count) }
    let samples = 10_000
    for step in 0...samples {
        let t = Double(step) / Double(samples)
        var x = start.x + (endX - start.x) * t
        x = (x + Double(count)).truncatingRemainder(dividingBy: Double(count))
        let y = start.y + (end.y - start.y) * t
        let tile = Tile(zoom: zoom, x: Int(x), y: min(Int(y), count - 1))!
        #expect(crossed.contains(tile), "sample \(t) in \(tile) not crossed")
    }
}

/// A hand-drawn pattern of visited tiles (`#`) at zoom 14, row 0 at y = 0, and its max square.
struct SquarePattern: Sendable, CustomTestStringConvertible {
    var rows: [String]
    var size: Int
    var x: Int
    var y: Int

    var tiles: [Tile] {
        rows.enumerated().flatMap { y, row in
            row.enumerated().compactMap { x, mark in mark == "#" ? Tile(zoom: 14, x: x, y: y)! : nil }
        }
    }

    var testDescription: String { rows.joined(separator: "/") }
}

@Test(
    .timeLimit(.minutes(5)),
    arguments: [
        SquarePattern(rows: ["....#", ".###.", ".####", ".###.", "#...."], size: 3, x: 1, y: 1),
        SquarePattern(rows: ["#......", "#......", "###....", ".......", ".....##", ".....##"], size: 2, x: 5, y: 4),
        // A 4 x 4 block with a hole is 2 x 2 at best; the first one in (y, x) order of its south-east tile.
        SquarePattern(rows: ["####", "####", "##.#", "####"], size: 2, x: 0, y: 0),
        SquarePattern(rows: ["#..", ".#.", "..#"], size: 1, x: 0, y: 0),
        SquarePattern(rows: ["#####", "#####", "#####", "#####", "#####"], size: 5, x: 0, y: 0),
    ])
func maxSquareFindsTheLargestFullBlock(pattern: SquarePattern) {
    let expected = TileSquare(origin: Tile(zoom: 14, x: pattern.x, y: pattern.y)!, size: pattern.size)
    #expect(TileSquare.largest(in: pattern.tiles) == expected)
}

@Test(.timeLimit(.minutes(10))) func maxSquareOfNothingIsNil() {
    #expect(TileSquare.largest(in: []) == nil)
}
