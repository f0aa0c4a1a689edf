import Foundation
import Testing

/// The built `locationd` executable next to the test bundle.
package func locationdBinary() -> URL {
    var dir = Bundle.main.bundleURL
    while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("locationd").path) {
        let parent = dir.deletingLastPathComponent()
        precondition(parent != dir, "locationd binary not found beside the tests")
        dir = parent
    }
    return dir.appendingPathComponent("locationd")
}

/// A copy of the built `locationd` in `directory`, for a test that runs it as another user:
/// the build folder lies in the checkout, which may be private to the user running the tests
/// (a clone in a 0700 directory), so the binary beside the tests may be out of that user's reach.
///
/// `cp` writes the copy in a process of its own: a copy written here leaves its descriptor
/// open in every child another test starts meanwhile, and running the copy then fails with
/// "Text file busy" for as long as such a child (a daemon) lives.
package func locationdCopy(in directory: String, named name: String = "locationd") async throws -> String {
    let path = directory + "/" + name
    let copy = try await runProgram("/bin/cp", [locationdBinary().path, path])
    guard copy.status == 0 else { throw POSIXError(.EIO) }
    return path
}

/// What a run of the built binary printed, and how it ended.
package struct Run: Sendable {
    package let status: Int32
    package let stdout: String
    package let stderr: String
}

/// Runs `locationd` with `arguments`, and `environment` over the tests' own, and waits for it to exit.
package func runLocationd(_ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
    try await runProgram(locationdBinary().path, arguments, environment: environment)
}

/// Runs `locationd arguments` whose stdout is not read; one still running after 20 s
/// (it should have refused at once) is a failure, recorded by `waitUntil`, and is killed.
package func runLocationdBounded(_ arguments: [String]) async throws -> Run {
    let errors = Pipe()
    let process = try ChildProcess(locationdBinary().path, arguments, standardError: .pipe(errors))
    if (try? await waitUntil(seconds: 20) { !process.isRunning }) == nil { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return Run(status: process.terminationStatus, stdout: "", stderr: stderr)
}

/// Runs the program at `path` with `arguments` and waits for it to exit, on a
/// thread of its own (see ``offThePool(_:)``).
package func runProgram(_ path: String, _ arguments: [String], environment: [String: String] = [:]) async throws
    -> Run
{
    try await offThePool { try runProgramBlocking(path, arguments, environment: environment) }
}

/// Runs the program at `path` with `arguments`, and `environment` over the tests' own, and
/// waits for it to exit.
package func runProgramBlocking(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws
    -> Run
{
    let output = Pipe()
    let errors = Pipe()
    let process = try ChildProcess(
        path, arguments,
        environment: environment.isEmpty ? nil : ProcessInfo.processInfo.environment.merging(environment) { $1 },
        standardOutput: .pipe(output), standardError: .pipe(errors))
    let stdoutData = output.fileHandleForReading.readDataToEndOfFile()
    let stderrData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(
        status: process.terminationStatus, stdout: String(decoding: stdoutData, as: UTF8.self),
        stderr: String(decoding: stderrData, as: UTF8.self))
}

/// Runs `locationd run` on a fresh data directory with the simulator and `arguments`, and
/// expects what a configuration error gives: exit status 64 and one line on stderr that
/// contains `message`.
package func expectRunRefuses(
    _ arguments: [String], saying message: String, sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let directory = try TemporaryDirectory()
    let run = try await runLocationd(
        ["run", "--data-dir", directory.path + "/data", "--source", "simulated"] + arguments)
    #expect(run.status == 64, sourceLocation: sourceLocation)
    #expect(run.stderr.contains(message), "\(run.stderr)", sourceLocation: sourceLocation)
    #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)", sourceLocation: sourceLocation)
}
