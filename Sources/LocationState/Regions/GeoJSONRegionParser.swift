import LocationFormats

/// Reads the regions of a GeoJSON FeatureCollection (RFC 7946) as it streams by.
///
/// Each feature is a region: a `Point` with `properties.radius` (metres) is a circle,
/// a `Polygon` or `MultiPolygon` is itself; `properties.name` is required, the
/// identifier is the feature's `id`, else `properties.id`, else the name. Other
/// members and properties are skipped without being kept, so memory is bounded by
/// the vertices, which are counted as they are read: past ``maximumVertices`` in the
/// file, reading stops with an error.
package struct GeoJSONRegionParser: ~Copyable {
    /// Most vertices (positions) in one region file.
    package static let maximumVertices = 1_000_000
    /// Largest circle radius, metres: beyond it a region is not a place.
    package static let maximumRadius = 1_000_000.0
    /// Deepest nesting of coordinate arrays (a MultiPolygon needs 4).
    package static let maximumCoordinateDepth = 6

    private var reader: GeoJSONByteReader
    private var vertices = 0
    /// Longitude and latitude of every position of the current feature, interleaved.
    private var flat: [Double] = []

    /// What is known of the feature being read, to name it in an error.
    private var featureNumber = 0
    private var featureName: String?
    private var featureID: RegionID?

    package init(reader: consuming GeoJSONByteReader) {
        self.reader = reader
    }

    /// Nested coordinate arrays: a position (index of its longitude in `flat`), a
    /// list of positions (a range of `flat`), or a list of lists.
    private indirect enum Coordinates {
        case position(Int)
        case positions(Range<Int>)
        case list([Coordinates])
    }

    /// Reads the whole file; throws the first problem, prefixed with the feature it is in.
    package mutating func regions() throws(RegionFileProblem) -> [Region] {
        var regions: [Region] = []
        var firstFeatureWithID: [RegionID: (number: Int, name: String)] = [:]
        var type: String?
        var sawFeatures = false
        try reader.skipByteOrderMark()
        try readObject { parser, key throws(RegionFileProblem) in
            switch key {
            case "type":
                type = try parser.reader.string()
                guard type == "FeatureCollection" else {
                    throw RegionFileProblem(
                        "the file is a GeoJSON \(type ?? "") object; regions must be a FeatureCollection")
                }
            case "features":
                sawFeatures = true
                try parser.reader.expect(UInt8(ascii: "["))
                if try parser.reader.consume(UInt8(ascii: "]")) { break }
                repeat {
                    let region = try parser.nextFeature()
                    if let earlier = firstFeatureWithID[region.id] {
                        throw RegionFileProblem(
                            "\(parser.featureLabel): duplicate id '\(Self.oneLine(region.id.rawValue))', already used by feature \(earlier.number) (\(String(reflecting: earlier.name)))"
                        )
                    }
                    firstFeatureWithID[region.id] = (parser.featureNumber, region.name)
                    regions.append(region)
                } while try parser.reader.consume(UInt8(ascii: ","))
                try parser.reader.expect(UInt8(ascii: "]"))
            default:
                try parser.reader.skipValue()
            }
        }
        if let byte = try reader.peekToken() { throw reader.unexpected(byte, wanted: "the end of the file") }
        guard type == "FeatureCollection", sawFeatures else {
            throw RegionFileProblem("not GeoJSON: the file is not a FeatureCollection with a \"features\" array")
        }
        return regions
    }

    /// The next feature of the `features` array, its errors labelled with its number and name.
    private mutating func nextFeature() throws(RegionFileProblem) -> Region {
        featureNumber += 1
        featureName = nil
        featureID = nil
        do {
            return try feature()
        } catch {
            throw RegionFileProblem("\(featureLabel): \(error.message)")
        }
    }

    /// Reads a JSON object (or `null`, when `orNull`) member by member: `body` gets each
    /// member's key and reads its value.
    private mutating func readObject(
        orNull: Bool = false, _ body: (inout Self, String) throws(RegionFileProblem) -> Void
    ) throws(RegionFileProblem) {
        if orNull, try reader.consumeNull() { return }
        try reader.expect(UInt8(ascii: "{"))
        if try reader.consume(UInt8(ascii: "}")) { return }
        repeat {
            let key = try reader.string()
            try reader.expect(UInt8(ascii: ":"))
            try body(&self, key)
        } while try reader.consume(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "}"))
    }

    /// `feature 3 ("Marina", id 7)`.
    private var featureLabel: String {
        var details: [String] = []
        // Quoted and escaped (`String(reflecting:)`), so that a name with a line
        // break still makes one line.
        if let featureName { details.append(String(reflecting: featureName)) }
        if let featureID, featureID.rawValue != featureName { details.append("id \(Self.oneLine(featureID.rawValue))") }
        return "feature \(featureNumber)" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
    }

    private mutating func feature() throws(RegionFileProblem) -> Region {
        flat.removeAll(keepingCapacity: true)
        var type: String?
        var geometryType: String?
        var coordinates: Coordinates?
        var propertyID: RegionID?
        var radius: Double?
        try readObject { parser, key throws(RegionFileProblem) in
            switch key {
            case "type":
                type = try parser.reader.string()
            case "id":
                parser.featureID = try parser.identifier()
            case "properties":
                try parser.readObject(orNull: true) { parser, property throws(RegionFileProblem) in
                    switch property {
                    case "name": parser.featureName = try parser.reader.string()
                    case "id": propertyID = try parser.identifier()
                    case "radius": radius = try parser.reader.number()
                    default: try parser.reader.skipValue()
                    }
                }
            case "geometry":
                try parser.readObject(orNull: true) { parser, member throws(RegionFileProblem) in
                    switch member {
                    case "type": geometryType = try parser.reader.string()
                    case "coordinates": coordinates = try parser.coordinates(depth: 1)
                    default: try parser.reader.skipValue()
                    }
                }
            default:
                try parser.reader.skipValue()
            }
        }
        guard type == "Feature" else {
            throw RegionFileProblem("not a GeoJSON Feature (its type is \(type ?? "missing"))")
        }
        guard let name = featureName, !name.isEmpty else { throw RegionFileProblem("has no name (properties.name)") }
        if featureID == nil { featureID = propertyID }
        let id = featureID ?? RegionID(name)
        guard let geometryType else { throw RegionFileProblem("has no geometry") }
        guard let coordinates else { throw RegionFileProblem("its \(geometryType) has no coordinates") }
        let geometry: RegionGeometry
        switch (geometryType, coordinates) {
        case ("Point", .position(let index)):
            guard let radius else { throw RegionFileProblem("a Point needs a radius in metres (properties.radius)") }
            guard radius > 0, radius <= Self.maximumRadius else {
                throw RegionFileProblem(
                    "radius must be more than 0 and at most \(Int(Self.maximumRadius)) metres, not \(radius)")
            }
            let lon = flat[index]
            let lat = flat[index + 1]
            guard abs(lat) <= 90, abs(lon) <= 180 else {
                throw RegionFileProblem("position [\(lon), \(lat)] is not a longitude and latitude")
            }
            geometry = .circle(centerLat: lat, centerLon: lon, radius: radius)
        case ("Polygon", .list(let rings)):
            geometry = .polygons([try polygon(rings)])
        case ("MultiPolygon", .list(let polygons)):
            var shapes: [RegionPolygonShape] = []
            for (index, polygon) in polygons.enumerated() {
                guard case .list(let rings) = polygon else {
                    throw RegionFileProblem("polygon \(index + 1) of the MultiPolygon is not a list of rings")
                }
                do {
                    shapes.append(try self.polygon(rings))
                } catch {
                    throw RegionFileProblem("polygon \(index + 1): \(error.message)")
                }
            }
            guard !shapes.isEmpty else { throw RegionFileProblem("the MultiPolygon has no polygons") }
            geometry = .polygons(shapes)
        case ("Point", _), ("Polygon", _), ("MultiPolygon", _):
            throw RegionFileProblem("the coordinates do not have the shape of a \(geometryType)")
        default:
            throw RegionFileProblem(
                "a \(geometryType) cannot be a region (use a Point with a radius, a Polygon or a MultiPolygon)")
        }
        return Region(id: id, name: name, geometry: geometry)
    }

    private func polygon(_ rings: [Coordinates]) throws(RegionFileProblem) -> RegionPolygonShape {
        var slices: [ArraySlice<Double>] = []
        for (index, ring) in rings.enumerated() {
            switch ring {
            case .positions(let range): slices.append(flat[range])
            case .list(let items) where items.isEmpty:
                throw RegionFileProblem("ring \(index + 1) is empty")
            default:
                throw RegionFileProblem("ring \(index + 1) is not a list of positions")
            }
        }
        return try RegionPolygonShape(ringSlices: slices)
    }

    /// A feature or property id: a string, or a number written as in the file.
    private mutating func identifier() throws(RegionFileProblem) -> RegionID? {
        switch try reader.peekToken() {
        case UInt8(ascii: "\""):
            return RegionID(try reader.string())
        case UInt8(ascii: "n"):
            _ = try reader.consumeNull()
            return nil
        default:
            let number = try reader.number()
            if number == number.rounded(), abs(number) < 1e15 { return RegionID(String(Int64(number))) }
            return RegionID(String(number))
        }
    }

    private mutating func coordinates(depth: Int) throws(RegionFileProblem) -> Coordinates {
        guard depth <= Self.maximumCoordinateDepth else {
            throw RegionFileProblem("coordinates nested deeper than \(Self.maximumCoordinateDepth) levels")
        }
        try reader.expect(UInt8(ascii: "["))
        if try reader.consume(UInt8(ascii: "]")) { return .list([]) }
        if let byte = try reader.peekToken(), byte == UInt8(ascii: "-") || (byte >= 0x30 && byte <= 0x39) {
            // A position: longitude, latitude, and an altitude that is ignored.
            var numbers: [Double] = []
            repeat {
                let value = try reader.number()
                if numbers.count < 2 { numbers.append(value) }
            } while try reader.consume(UInt8(ascii: ","))
            try reader.expect(UInt8(ascii: "]"))
            guard numbers.count == 2 else { throw RegionFileProblem("a position needs a longitude and a latitude") }
            vertices += 1
            guard vertices <= Self.maximumVertices else {
                throw RegionFileProblem(
                    "too many vertices: the file has more than \(Self.maximumVertices); simplify the regions or split the file"
                )
            }
            flat.append(numbers[0])
            flat.append(numbers[1])
            return .position(flat.count - 2)
        }
        var items: [Coordinates] = []
        // Positions of one list are contiguous in `flat`: only their range is kept.
        var run: Range<Int>?
        repeat {
            let item = try coordinates(depth: depth + 1)
            switch item {
            case .position(let index):
                guard items.isEmpty else { throw RegionFileProblem("a list mixes positions and lists of positions") }
                run = (run?.lowerBound ?? index)..<index + 2
            case .positions, .list:
                guard run == nil else { throw RegionFileProblem("a list mixes positions and lists of positions") }
                items.append(item)
            }
        } while try reader.consume(UInt8(ascii: ","))
        try reader.expect(UInt8(ascii: "]"))
        if let run { return .positions(run) }
        return .list(items)
    }

    /// `text` with control characters escaped (`\n`, `\u{1}`), for an error message of one line.
    private static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        return String(
            String.UnicodeScalarView(
                text.unicodeScalars.flatMap { scalar -> [Unicode.Scalar] in
                    scalar.value < 0x20 || scalar.value == 0x7F
                        ? Array(scalar.escaped(asASCII: true).unicodeScalars) : [scalar]
                }))
    }
}
