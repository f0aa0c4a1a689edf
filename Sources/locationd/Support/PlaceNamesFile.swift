import Foundation
import LocationRegions
import LocationState
import LocationTimeline
import Logging

/// Where locationd finds GeoNames' places (`places.bin`, made by `scripts/geonames-extract`):
/// installed beside the executable (`../share/locationd/places.bin`, the package's
/// `/usr/share/locationd/`), else, for a build inside the source tree, its `dist/places.bin`.
enum PlaceNamesFile {
    static let name = "places.bin"

    /// The places, or nil with one warning (when given a logger) when there is no usable
    /// file: stays are then named by the regions alone.
    static func load(logger: Logger?) -> PlaceNames? {
        guard let path = locate() else {
            logger?.warning(
                "no \(name) beside the executable (../share/locationd/) or in its source tree: stays are named by the regions alone"
            )
            return nil
        }
        do {
            return try PlaceNames(path: path)
        } catch {
            logger?.warning("\(error.message): stays are named by the regions alone")
            return nil
        }
    }

    /// The places for the daemon, opened at the first call (with its one warning when there
    /// is no usable file), the same ones after.
    static func loadedOnce(logger: Logger) -> @Sendable () -> PlaceNames? {
        let loaded = Locked<PlaceNames??>(nil)
        return {
            loaded.withLock { loaded in
                if let places = loaded { return places }
                let places = load(logger: logger)
                loaded = .some(places)
                return places
            }
        }
    }

    /// What names stays in a command that reads a timeline file: the places alone (the
    /// daemon's answers are named already, with its regions).
    static let naming: StayNaming? = {
        guard let places = load(logger: nil) else { return nil }
        return { latitude, longitude in places.nearest(lat: latitude, lon: longitude) }
    }()

    /// The first file of the candidates that exists.
    static func locate(executable: URL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()) -> String? {
        let directory = executable.deletingLastPathComponent()
        var candidates = [directory.appendingPathComponent("../share/locationd/\(name)").standardizedFileURL.path]
        // A build directory in the source tree: .build/TRIPLE/CONFIGURATION/locationd.
        var parent = directory
        for _ in 0..<5 {
            parent = parent.deletingLastPathComponent()
            if FileManager.default.fileExists(atPath: parent.appendingPathComponent("Package.swift").path) {
                candidates.append(parent.appendingPathComponent("dist/\(name)").path)
                break
            }
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0) }
    }
}
