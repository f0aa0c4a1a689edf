import Foundation
import LocationState

#if canImport(Glibc)
    import Glibc
#endif

/// The populated places of GeoNames (cities1000: places of 1,000 people or more), read from
/// the file `scripts/geonames-extract` writes (`places.bin`), mapped into memory, never parsed.
///
/// ``nearest(lat:lon:)`` is the place reverse_geocoder (the reference) would name: the
/// nearest by straight-line distance in degrees of latitude and longitude, as its k-d tree
/// over the raw coordinates measures (so a degree of longitude counts as much as one of
/// latitude, and ±180° do not meet). The places are sorted into cells of a degree square;
/// a lookup reads the point's cell and the rings of cells around it until none can hold
/// a nearer place.
public final class PlaceNames: @unchecked Sendable {
    // `@unchecked`: the pointers are into a read-only mapping that lives as long as the instance.
    private let base: UnsafeRawPointer
    private let size: Int
    private let count: Int
    private let regionCount: Int
    private let cells: UnsafePointer<UInt32>
    private let latitudes: UnsafePointer<Int32>
    private let longitudes: UnsafePointer<Int32>
    private let nameOffsets: UnsafePointer<UInt32>
    private let regionIndices: UnsafePointer<UInt16>
    private let regionOffsets: UnsafePointer<UInt32>
    private let names: UnsafeBufferPointer<UInt8>
    private let regionNames: UnsafeBufferPointer<UInt8>

    private static let magic = Array("LDPLACE1".utf8)
    private static let cellCount = 180 * 360

    /// How many places the file holds.
    public var placeCount: Int { count }

    /// Maps the file at `path`.
    ///
    /// - Throws: ``LocationError`` when it cannot be read or is not a whole places file.
    public init(path: String) throws(LocationError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw errno == ENOENT
                ? .fileNotFound(path: path) : .fileUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw .fileUnreadable(path: path, reason: "not a regular file")
        }
        let size = Int(status.st_size)
        let header = 8 + 16 + (Self.cellCount + 1) * 4
        guard size >= header, size <= 64 << 20 else { throw Self.corrupt(path) }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw .fileUnreadable(path: path, reason: String(cString: strerror(errno)))
        }
        let base = UnsafeRawPointer(mapped)
        func word(_ offset: Int) -> Int {
            Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        }
        let (count, regionCount, nameBytes, regionBytes) = (word(8), word(12), word(16), word(20))
        let latitudes = header
        let nameOffsets = latitudes + count * 8
        let regionIndices = nameOffsets + count * 4
        let regionOffsets = regionIndices + (count * 2 + 3) & ~3
        let namesStart = regionOffsets + regionCount * 4
        guard memcmp(base, Self.magic, 8) == 0, count < 1 << 24, regionCount < 1 << 16,
            namesStart + nameBytes + regionBytes == size, latitudes % 4 == 0, regionOffsets % 4 == 0,
            word(24 + Self.cellCount * 4) == count
        else {
            munmap(mapped, size)
            throw Self.corrupt(path)
        }
        self.base = base
        self.size = size
        self.count = count
        self.regionCount = regionCount
        cells = (base + 24).assumingMemoryBound(to: UInt32.self)
        self.latitudes = (base + latitudes).assumingMemoryBound(to: Int32.self)
        longitudes = (base + latitudes + count * 4).assumingMemoryBound(to: Int32.self)
        self.nameOffsets = (base + nameOffsets).assumingMemoryBound(to: UInt32.self)
        self.regionIndices = (base + regionIndices).assumingMemoryBound(to: UInt16.self)
        self.regionOffsets = (base + regionOffsets).assumingMemoryBound(to: UInt32.self)
        names = UnsafeBufferPointer(start: (base + namesStart).assumingMemoryBound(to: UInt8.self), count: nameBytes)
        regionNames = UnsafeBufferPointer(
            start: (base + namesStart + nameBytes).assumingMemoryBound(to: UInt8.self), count: regionBytes)
        guard checkCells() else {
            munmap(mapped, size)
            throw Self.corrupt(path)
        }
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }

    private static func corrupt(_ path: String) -> LocationError {
        .fileUnreadable(path: path, reason: "not a locationd places file (scripts/geonames-extract makes one)")
    }

    /// Whether the cell starts rise to the count: a lookup then never reads past the places.
    private func checkCells() -> Bool {
        var previous: UInt32 = 0
        for cell in 0...Self.cellCount {
            guard cells[cell] >= previous else { return false }
            previous = cells[cell]
        }
        return true
    }

    /// The nearest place to a point (see the type's description); nil for a point that is
    /// not a coordinate or a file with no places.
    public func nearest(lat: Double, lon: Double) -> String? {
        guard let best = nearestIndex(lat: lat, lon: lon) else { return nil }
        let name = string(names, at: Int(nameOffsets[best]))
        let region = Int(regionIndices[best])
        guard region < regionCount else { return name }
        return name + ", " + string(regionNames, at: Int(regionOffsets[region]))
    }

    /// The coordinates of the nearest place, in 1e-5 degrees as the file holds them.
    public func nearestCoordinates(lat: Double, lon: Double) -> (latitude: Int32, longitude: Int32)? {
        nearestIndex(lat: lat, lon: lon).map { (latitudes[$0], longitudes[$0]) }
    }

    private func nearestIndex(lat: Double, lon: Double) -> Int? {
        guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180, count > 0 else { return nil }
        let (y, x) = (Int64((lat * 1e5).rounded()), Int64((lon * 1e5).rounded()))
        let row = Int(min(max(y, -9_000_000), 8_999_999) / 100_000 + (y < 0 && y % 100_000 != 0 ? -1 : 0)) + 90
        let column = Int(min(max(x, -18_000_000), 17_999_999) / 100_000 + (x < 0 && x % 100_000 != 0 ? -1 : 0)) + 180
        var best = -1
        var bestDistance = Int64.max
        var ring = 0
        while ring <= 360 {
            for r in max(row - ring, 0)...min(row + ring, 179) {
                let edge = r == row - ring || r == row + ring
                // Of the rows between, only the ring's left and right cells are new.
                let columns =
                    edge
                    ? Array(max(column - ring, 0)...min(column + ring, 359))
                    : [column - ring, column + ring].filter { (0..<360).contains($0) }
                for c in columns {
                    let index = r * 360 + c
                    for place in Int(cells[index])..<Int(cells[index + 1]) {
                        let dy = Int64(latitudes[place]) - y
                        let dx = Int64(longitudes[place]) - x
                        let distance = dy * dy + dx * dx
                        if distance < bestDistance { (best, bestDistance) = (place, distance) }
                    }
                }
            }
            // Cells of the next ring are at least `ring` degrees away.
            let reach = Int64(ring) * 100_000
            if best >= 0, bestDistance <= reach * reach { break }
            ring += 1
        }
        return best >= 0 ? best : nil
    }

    /// The NUL-terminated string at `offset` of `bytes` (empty when out of bounds).
    private func string(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> String {
        guard offset < bytes.count else { return "" }
        let rest = UnsafeBufferPointer(rebasing: bytes[offset...])
        let end = rest.firstIndex(of: 0) ?? rest.endIndex
        return String(decoding: UnsafeBufferPointer(rebasing: rest[..<end]), as: UTF8.self)
    }
}
