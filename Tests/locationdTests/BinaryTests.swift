import Foundation
import LocationTestSupport
import Testing

@Test(.timeLimit(.minutes(10))) func helpNamesTheTool() throws {
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
