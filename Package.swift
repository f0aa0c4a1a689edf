// swift-tools-version:6.0
import PackageDescription

#if canImport(Glibc)
    import Glibc
#endif

let package = Package(
    name: "locationd",
    platforms: [.macOS(.v14)],
    products: [
        // The containers and the fix: pure Swift, for any program that keeps a location as state.
        .library(name: "LocationState", targets: ["LocationState"]),
        .library(name: "LocationFormats", targets: ["LocationFormats"]),
        .library(name: "LocationProviders", targets: ["LocationProviders"]),
        .library(name: "LocationStores", targets: ["LocationStores"]),
        .library(name: "LocationRegions", targets: ["LocationRegions"]),
        .library(name: "LocationTimeline", targets: ["LocationTimeline"]),
        .library(name: "LocationMQTT", targets: ["LocationMQTT"]),
        .library(name: "LocationUplinks", targets: ["LocationUplinks"]),
        .executable(name: "locationd", targets: ["locationd"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    ],
    targets: [
        .systemLibrary(
            name: "CGPS",
            pkgConfig: "libgps",
            providers: [.apt(["libgps-dev"])]
        ),
        // libxml2 and libmosquitto are loaded at run time, only when a GPX file is read or
        // MQTT is configured (see their headers, and docs/decisions.md): each target is a
        // small C loader with its own copy of the few declarations it needs (checked
        // against the -dev packages' headers by scripts/check-c-declarations), so neither
        // library is linked, and neither -dev package nor include path is needed to build.
        .target(name: "CLibXML2"),
        .target(name: "CMosquitto"),
        // The layers, lowest first: a target imports only targets listed before it
        // (docs/architecture.md). All but the first live in folders of Sources/LocationState.
        .target(
            name: "LocationState",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            exclude: ["Formats", "Providers", "Stores", "Regions", "Timeline", "MQTT", "Uplinks"]
        ),
        .target(
            name: "LocationFormats",
            dependencies: ["LocationState", "CLibXML2"],
            path: "Sources/LocationState/Formats"
        ),
        .target(
            name: "LocationProviders",
            dependencies: ["LocationFormats", "CGPS", .product(name: "Logging", package: "swift-log")],
            path: "Sources/LocationState/Providers"
        ),
        .target(
            name: "LocationStores",
            dependencies: [
                "LocationFormats",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/LocationState/Stores"
        ),
        .target(
            name: "LocationRegions",
            dependencies: ["LocationFormats", .product(name: "Logging", package: "swift-log")],
            path: "Sources/LocationState/Regions"
        ),
        .target(
            name: "LocationTimeline",
            dependencies: [
                "LocationStores",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/LocationState/Timeline"
        ),
        .target(
            name: "LocationMQTT",
            dependencies: [
                "LocationProviders",
                "LocationRegions",
                "LocationTimeline",
                "CMosquitto",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/LocationState/MQTT"
        ),
        // Sends the fixes to HTTP servers (Traccar, Dawarich, the OwnTracks Recorder, ...)
        // from an outbox of its own, one cursor per target.
        .target(
            name: "LocationUplinks",
            dependencies: [
                "LocationTimeline",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/LocationState/Uplinks"
        ),
        .executableTarget(
            name: "locationd",
            dependencies: [
                "LocationMQTT",
                "LocationUplinks",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            linkerSettings: [.unsafeFlags(releaseLinkerFlags, .when(platforms: [.linux], configuration: .release))]
        ),
        // What both test targets use: clocks, recorders, waiting with deadlines, generated
        // tracks, and the harnesses of the real parts (gpsfake, Mosquitto, chromium, Home Assistant).
        .target(
            name: "LocationTestSupport",
            dependencies: [
                "LocationMQTT",
                "LocationUplinks",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/LocationTestSupport"
        ),
        .testTarget(
            name: "LocationStateTests",
            dependencies: ["LocationTestSupport", .product(name: "InMemoryLogging", package: "swift-log")]
        ),
        .testTarget(
            name: "locationdTests",
            dependencies: [
                "LocationTestSupport", "locationd", .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
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

/// How the release `locationd` is linked on Linux, to keep the daemon's resident memory small.
///
/// Most of a Swift daemon's resident memory is the code it maps, not the data it
/// allocates, and the kernel maps code 64 KiB around each page it faults in. So:
/// - the Swift runtime, Foundation and Dispatch are linked in (`-static-stdlib`),
///   so that only the code used is mapped, not eight whole shared libraries;
/// - lld places the functions the daemon runs first, in the order of
///   `dist/locationd.order` (made by `scripts/order-file`, which CI runs with `--check`;
///   a stale order costs memory, never correctness);
/// - only the symbols the shared libraries need are exported, so the dynamic
///   linker does not page in a megabyte of symbol tables;
/// - with glibc 2.36 or later, relocations are packed (`DT_RELR`): the executable
///   stays position independent without 2 MB of relocations read at every start.
///
/// Debug builds (`swift test`) link the usual way.
var releaseLinkerFlags: [String] {
    var flags = [
        "-static-stdlib", "-use-ld=lld",
        // The static Foundation's own libraries, which the modules compiled against
        // the shared Foundation do not name.
        "-l_FoundationICU", "-l_FoundationCollections", "-l_FoundationCShims", "-lCoreFoundation",
        "-Xlinker", "--no-export-dynamic",
        "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/dist/locationd.order",
        "-Xlinker", "--no-warn-symbol-ordering",
    ]
    if glibcPacksRelocations { flags += ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] }
    return flags
}

/// Whether this machine's glibc reads packed relocations (`DT_RELR`, glibc 2.36 and later).
var glibcPacksRelocations: Bool {
    #if canImport(Glibc)
        var name = [UInt8](repeating: 0, count: 64)
        guard confstr(Int32(_CS_GNU_LIBC_VERSION), &name, name.count) > 0 else { return false }
        // "glibc 2.36"
        let text = String(decoding: name.prefix { $0 != 0 }, as: UTF8.self)
        let version = text.split(separator: " ").last?.split(separator: ".").compactMap { Int($0) } ?? []
        return version.count >= 2 && (version[0], version[1]) >= (2, 36)
    #else
        return false
    #endif
}
