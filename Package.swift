// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "locationd",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "LocationState", targets: ["LocationState"]),
        .executable(name: "locationd", targets: ["locationd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),
        .target(
            name: "LocationState",
            dependencies: [
                "CGPS",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "locationd",
            dependencies: [
                "LocationState",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LocationStateTests",
            dependencies: ["LocationState"]
        ),
        .testTarget(
            name: "locationdTests",
            dependencies: ["LocationState", "locationd"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Complete strict concurrency everywhere (Swift 6 mode already implies it; stated for clarity).
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("StrictConcurrency"))
    target.swiftSettings = settings
}
