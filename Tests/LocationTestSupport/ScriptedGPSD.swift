import Foundation
import LocationFormats
import LocationMQTT
import LocationProviders
import LocationState
import LocationStores
import Logging

/// A gpsd connector that plays scripted connections, for GPSDProvider's logic
/// without a gpsd: each `connect` takes the next outcome, and refuses once they run out.
package final class ScriptedGPSD: Sendable {
    /// What one connection attempt does.
    package enum Outcome {
        /// The connection is refused with `reason`.
        case refuse(String)
        /// The connection opens and delivers `steps`, then stays open and silent.
        case session([Step])
    }

    /// One thing a scripted session does when read.
    package enum Step {
        /// A report arrives.
        case message(GPSDMessage)
        /// Part of a line arrives (the read returns nothing).
        case partial
        /// The connection breaks.
        case fail(String)
    }

    /// The outcomes still to come, and how many connections were attempted.
    private let state: Locked<(outcomes: [Outcome], attempts: Int)>

    package init(_ outcomes: [Outcome]) { state = Locked((outcomes, 0)) }

    /// How many times the provider tried to connect.
    package var connectionAttempts: Int { state.withLock { $0.attempts } }

    package var connector: GPSDConnector {
        GPSDConnector { _, _ throws(GPSDConnectionError) in
            let outcome: Outcome? = self.state.withLock { state in
                state.attempts += 1
                return state.outcomes.isEmpty ? nil : state.outcomes.removeFirst()
            }
            switch outcome {
            case .refuse(let reason): throw GPSDConnectionError(reason: reason)
            case .session(let steps): return Session(steps: steps)
            case nil: throw GPSDConnectionError(reason: "no more scripted connections")
            }
        }
    }

    private final class Session: GPSDSession {
        private var steps: [Step]

        init(steps: [Step]) { self.steps = steps }

        func waitForInput(timeout: Duration) -> Bool {
            if !steps.isEmpty { return true }
            Thread.sleep(forTimeInterval: timeout.inSeconds)
            return false
        }

        func read() throws(GPSDConnectionError) -> GPSDMessage? {
            guard !steps.isEmpty else { return nil }
            switch steps.removeFirst() {
            case .message(let message): return message
            case .partial: return nil
            case .fail(let reason): throw GPSDConnectionError(reason: reason)
            }
        }

        func close() {}
    }
}

extension GPSDProvider {
    /// A provider over `script`, with fast backoff and polling.
    package static func scripted(_ script: ScriptedGPSD, logger: Logger, greetingTimeout: Duration = .seconds(5))
        -> GPSDProvider
    {
        GPSDProvider(
            host: "gpsd.test", port: 2947, backoff: Backoff(initial: .milliseconds(5), maximum: .milliseconds(20)),
            pollInterval: .milliseconds(10), greetingTimeout: greetingTimeout, logger: logger,
            connector: script.connector)
    }
}
