import Foundation
import Testing

/// The built `locationd` executable next to the test bundle.
func locationdBinary() -> URL {
    var dir = Bundle.main.bundleURL
    while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("locationd").path) {
        let parent = dir.deletingLastPathComponent()
        precondition(parent != dir, "locationd binary not found beside the tests")
        dir = parent
    }
    return dir.appendingPathComponent("locationd")
}

@Test func helpNamesTheTool() throws {
    let process = Process()
    process.executableURL = locationdBinary()
    process.arguments = ["--help"]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(output.contains("location service"))
}
