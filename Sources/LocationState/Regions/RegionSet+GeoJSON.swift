import Foundation
import LocationFormats
import LocationState

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension RegionSet {
    /// Largest region file read, bytes.
    public static let maximumFileSize = 512 << 20

    /// Reads the regions of a GeoJSON FeatureCollection file.
    ///
    /// Each feature is a region: a `Point` with `properties.radius` in metres (a
    /// circle), a `Polygon` or a `MultiPolygon`; `properties.name` is required; the
    /// identifier is the feature's `id`, else `properties.id`, else the name. The file
    /// is read as it streams, at most ``maximumFileSize`` bytes and
    /// `1,000,000` vertices, with bounded memory.
    ///
    /// - Throws: ``LocationError``, one line naming the file and the feature:
    ///   `.fileNotFound`/`.fileUnreadable` when it cannot be read, `.usage` when it is
    ///   not GeoJSON, a ring is not closed or intersects itself, a radius is not
    ///   positive, an identifier repeats, or there are too many vertices.
    public static func load(geoJSONFile path: String) throws(LocationError) -> RegionSet {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { throw .fileNotFound(path: path) }
            throw .fileUnreadable(path: path, reason: SystemCall.message())
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw .fileUnreadable(path: path, reason: SystemCall.message())
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw .fileUnreadable(path: path, reason: "it is not a regular file")
        }
        guard Int(status.st_size) <= maximumFileSize else {
            throw .usage(
                "\(path): the region file is \(status.st_size) bytes, more than the \(maximumFileSize >> 20) MiB locationd reads; simplify the regions or split the file"
            )
        }
        return try parse(GeoJSONByteReader(descriptor: descriptor), name: path)
    }

    /// Reads regions from GeoJSON text; `name` stands for the file in errors.
    public init(geoJSON text: String, name: String = "regions") throws(LocationError) {
        self = try RegionSet.parse(GeoJSONByteReader(bytes: Array(text.utf8)), name: name)
    }

    private static func parse(_ reader: consuming GeoJSONByteReader, name: String) throws(LocationError) -> RegionSet {
        var parser = GeoJSONRegionParser(reader: reader)
        let regions: [Region]
        do {
            regions = try parser.regions()
        } catch {
            throw .usage("\(name): \(error.message)")
        }
        do {
            return try RegionSet(regions)
        } catch {
            throw .usage("\(name): \(error.message)")
        }
    }
}
