// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets over the readers of recorded fixes: NMEA (line framing, parser, epoch
// assembler), gpsd JSON and GPX, each followed by the validation and every writer.
// Build and run with ../scripts/fuzz SECONDS [nmea|json|gpx].
let package = Package(
    name: "locationd-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "locationd", path: "..")],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "LocationState", package: "locationd")]),
        .executableTarget(
            name: "NMEAFuzz",
            dependencies: ["FuzzSupport", .product(name: "LocationState", package: "locationd")]),
        .executableTarget(
            name: "GPSDJSONFuzz",
            dependencies: ["FuzzSupport", .product(name: "LocationState", package: "locationd")]),
        .executableTarget(
            name: "GPXFuzz",
            dependencies: ["FuzzSupport", .product(name: "LocationState", package: "locationd")]),
    ],
    swiftLanguageModes: [.v6]
)
