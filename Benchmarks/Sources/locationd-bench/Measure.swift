import Foundation
import LocationState

/// The wall-clock time `body` takes, in seconds.
func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let clock = ContinuousClock()
    let elapsed = try await clock.measure(body)
    return elapsed.inSeconds
}

/// `value` with a metric suffix and three significant digits: `1.23M`.
func metric(_ value: Double) -> String {
    switch value {
    case 1e9...: String(format: "%.3gG", value / 1e9)
    case 1e6...: String(format: "%.3gM", value / 1e6)
    case 1e3...: String(format: "%.3gk", value / 1e3)
    default: String(format: "%.3g", value)
    }
}
