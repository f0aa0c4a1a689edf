import LocationFormats
import LocationState

/// One polygon of a region with its holes, made from GeoJSON rings and checked (closed, simple).
public struct RegionPolygonShape: Sendable {
    package let polygon: RegionPolygon

    /// A polygon from GeoJSON rings (`[lon, lat]` positions, interleaved; the first
    /// ring is the outer one, the others holes).
    ///
    /// - Throws: ``LocationError`` (usage) naming the problem: a ring not closed,
    ///   too short, intersecting itself, or positions that are not coordinates.
    public init(rings: [[Double]]) throws(LocationError) {
        do {
            self = try RegionPolygonShape(ringSlices: rings.map { $0[...] })
        } catch {
            throw .usage(error.message)
        }
    }

    package init(ringSlices: [ArraySlice<Double>]) throws(RegionFileProblem) {
        guard let first = ringSlices.first else { throw RegionFileProblem("a polygon has no rings") }
        let outer = try RegionRing(positions: first)
        var holes: [RegionRing] = []
        for (index, slice) in ringSlices.dropFirst().enumerated() {
            do {
                holes.append(try RegionRing(positions: slice))
            } catch {
                throw RegionFileProblem("hole \(index + 1): \(error.message)")
            }
        }
        polygon = RegionPolygon(outer: outer, holes: holes)
    }
}
