// swift-tools-version:6.0
import PackageDescription

// libFuzzer target over the NMEA decoder (line framing, parser, epoch assembler).
// Build and run with ../scripts/fuzz SECONDS.
let package = Package(
    name: "locationd-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "locationd", path: "..")],
    targets: [
        .executableTarget(
            name: "NMEAFuzz",
            dependencies: [.product(name: "LocationState", package: "locationd")]
        )
    ],
    swiftLanguageModes: [.v6]
)
