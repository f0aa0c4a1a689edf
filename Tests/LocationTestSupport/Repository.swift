import Foundation

/// The repository the tests run from: its root, and the files in it tests read.
package enum Repository {
    /// The root: this file is Tests/LocationTestSupport/Repository.swift.
    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `relativePath` under the root.
    package static func path(_ relativePath: String) -> String {
        root.appendingPathComponent(relativePath).path
    }

    /// A file of SampleTracks/.
    package static func sampleTrack(_ name: String) -> String {
        path("SampleTracks/" + name)
    }
}
