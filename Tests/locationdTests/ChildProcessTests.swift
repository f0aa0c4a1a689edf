import Foundation
import LocationTestSupport
import Testing

/// The programs the tests start hold nothing of the test process: a test process that
/// crashes must not leave a broker or daemon holding its output pipe open (whoever reads
/// the suite's output would wait for ever), nor a blocked SIGTERM.
@Suite struct ChildProcessTests {
    @Test func aChildHasOnlyItsOwnStandardStreamsAndAnEmptySignalMask() async throws {
        // A descriptor the test holds, not close-on-exec, as SwiftNIO's and Foundation's pipes are.
        let held = Pipe()
        // From a thread that blocks SIGTERM, as Dispatch's threads that started Foundation's
        // Process's children did.
        let child = try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                var blocked = sigset_t()
                sigemptyset(&blocked)
                sigaddset(&blocked, SIGTERM)
                pthread_sigmask(SIG_BLOCK, &blocked, nil)
                continuation.resume(with: Result { try ChildProcess("/bin/sleep", ["60"]) })
            }
        }
        defer {
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        let directory = "/proc/\(child.processIdentifier)/fd"
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(descriptors == ["0", "1", "2"], "held: \(held.fileHandleForWriting.fileDescriptor)")
        for descriptor in descriptors {
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + descriptor) == "/dev/null")
        }
        let status = try String(contentsOfFile: "/proc/\(child.processIdentifier)/status", encoding: .utf8)
        #expect(status.split(separator: "\n").contains("SigBlk:\t0000000000000000"))
    }

    @Test func aPipeCarriesTheOutputAndTheStatusComesBack() async throws {
        let output = Pipe()
        let child = try ChildProcess(
            "/bin/sh", ["-c", "echo \"$GREETING\"; kill -TERM $$"],
            environment: ["GREETING": "hello"], standardOutput: .pipe(output))
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        #expect(text == "hello\n")
        #expect(child.terminationReason == .uncaughtSignal)
        #expect(child.terminationStatus == SIGTERM)
        #expect(!child.isRunning)
        let exiting = try ChildProcess("/bin/sh", ["-c", "exit 3"])
        exiting.waitUntilExit()
        #expect(exiting.terminationReason == .exit)
        #expect(exiting.terminationStatus == 3)
        #expect(throws: ChildProcessError.self) { try ChildProcess("/nonexistent/program") }
    }
}
