import Foundation
import LocationTestSupport
import Testing

@Test(.timeLimit(.minutes(10))) func helpNamesTheTool() throws {
    let pipe = Pipe()
    let process = try ChildProcess(locationdBinary().path, ["--help"], standardOutput: .pipe(pipe))
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    #expect(output.contains("location service"))
}
