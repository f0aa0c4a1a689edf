import LocationState

/// The regions locationd watches, indexed for the membership update of every fix.
///
/// Identifiers are unique. Finding the regions that contain a point costs a query of
/// a packed R-tree over the regions' bounding boxes and an exact test of the few
/// regions whose boxes contain it: with 100,000 regions a fix costs a few
/// microseconds, not a scan.
public struct RegionSet: Sendable {
    /// The regions, in the order of the file.
    public let regions: [Region]
    private let indexByID: [RegionID: Int]
    private let tree: RegionTree

    /// Indexes `regions`.
    ///
    /// - Throws: ``LocationError`` (usage) when two regions share an identifier.
    public init(_ regions: [Region]) throws(LocationError) {
        var indexByID: [RegionID: Int] = [:]
        indexByID.reserveCapacity(regions.count)
        for (index, region) in regions.enumerated() {
            if let earlier = indexByID.updateValue(index, forKey: region.id) {
                throw .usage(
                    "regions \(earlier + 1) (\"\(regions[earlier].name)\") and \(index + 1) (\"\(region.name)\") have the same id '\(region.id)'"
                )
            }
        }
        self.regions = regions
        self.indexByID = indexByID
        var entries: [(box: GeoBox, payload: Int)] = []
        entries.reserveCapacity(regions.count)
        for (index, region) in regions.enumerated() {
            for box in region.geometry.boxes { entries.append((box, index)) }
        }
        tree = RegionTree(entries)
    }

    /// No regions.
    public static let empty = RegionSet()

    private init() {
        regions = []
        indexByID = [:]
        tree = RegionTree([])
    }

    /// The region with this identifier.
    public subscript(id: RegionID) -> Region? {
        indexByID[id].map { regions[$0] }
    }

    /// Whether a region has this identifier.
    public func contains(_ id: RegionID) -> Bool { indexByID[id] != nil }

    /// The regions that contain the point, in file order.
    public func regions(containing lat: Double, _ lon: Double) -> [Region] {
        indices(containing: lat, lon).map { regions[$0] }
    }

    /// The positions in ``regions`` of the regions that contain the point, ascending.
    package func indices(containing lat: Double, _ lon: Double) -> [Int] {
        var found: [Int] = []
        tree.forEach(containing: lat, lon) { index in
            if regions[index].geometry.contains(lat: lat, lon: lon) { found.append(index) }
        }
        if found.count > 1 {
            // A region crossing the antimeridian has two boxes, both holding ±180.
            found = Array(Set(found)).sorted()
        }
        return found
    }

    /// The position in ``regions`` of the region with this identifier.
    package func index(of id: RegionID) -> Int? { indexByID[id] }

    public var count: Int { regions.count }
    public var isEmpty: Bool { regions.isEmpty }
}
