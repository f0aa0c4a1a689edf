// swift-tools-version:6.0
import PackageDescription

// Benchmarks live in their own package so that the peers they compare against
// (OpenCombine, ...) never become dependencies of locationd itself.
let package = Package(
    name: "locationd-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "locationd", path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .executableTarget(
            name: "locationd-bench",
            dependencies: [
                .product(name: "LocationState", package: "locationd"),
                .product(name: "LocationFormats", package: "locationd"),
                .product(name: "LocationProviders", package: "locationd"),
                .product(name: "LocationStores", package: "locationd"),
                .product(name: "LocationRegions", package: "locationd"),
                .product(name: "LocationTimeline", package: "locationd"),
                .product(name: "LocationMQTT", package: "locationd"),
                .product(name: "LocationUplinks", package: "locationd"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("StrictConcurrency"))
    target.swiftSettings = settings
}
