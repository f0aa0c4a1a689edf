import Foundation
import LocationProviders
import LocationState
import LocationTestSupport
import Testing

/// CPU used by a GPSDProvider with default settings while it has nothing to read.
///
/// A measurement over a fixed window, not a wait, so it runs only when asked:
/// `LOCATIOND_MEASURE_IDLE_CPU=1 swift test --filter GPSDIdleCPUTests`.
@Suite(
    .serialized, .enabled(if: ProcessInfo.processInfo.environment["LOCATIOND_MEASURE_IDLE_CPU"] != nil),
    .timeLimit(.minutes(10)))
struct GPSDIdleCPUTests {
    static let window = Duration.seconds(10)

    /// CPU time (user + system) this process has used so far, seconds.
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    static func measure(_ provider: GPSDProvider) async throws -> Double {
        let task = Task { try await provider.run { _ in } }
        defer { task.cancel() }
        try await Task.sleep(for: .seconds(1))
        let before = processCPUSeconds()
        try await Task.sleep(for: window)
        let used = processCPUSeconds() - before
        return used / window.inSeconds * 100
    }

    @Test func absentGPSD() async throws {
        let port = try GPSFake.freeLoopbackPort()
        let percent = try await Self.measure(GPSDProvider(host: "127.0.0.1", port: port))
        print(String(format: "CPU while gpsd is absent: %.3f %% of one core over %@", percent, "\(Self.window)"))
        #expect(percent < 1)
    }

    @Test func gpsdWithoutDevice() async throws {
        let server = try FakeGPSDServer(
            reply: Data(
                (#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"# + "\n"
                    + #"{"class":"DEVICES","devices":[]}"# + "\n").utf8),
            then: .holdOpen)
        defer { server.stop() }
        let percent = try await Self.measure(GPSDProvider(host: "127.0.0.1", port: server.port))
        print(String(format: "CPU while gpsd has no device: %.3f %% of one core over %@", percent, "\(Self.window)"))
        #expect(percent < 1)
    }
}
