import Foundation
import LocationState
import NIOCore

/// `locationd uplinks --test NAME`: one fix sent to one target now, outside the outbox
/// (no cursor moves), and what the server answered.
public enum UplinkTest {
    /// What came back: whether it was a delivery, and the answer in the server's words.
    public struct Result: Sendable {
        public var delivered: Bool
        public var answer: UplinkAnswer
        public var words: String
    }

    /// Sends `fix` to `target` with its credentials (read now) and reads the answer.
    ///
    /// - Throws: ``LocationError`` when a secret or the CA file cannot be read, or the fix
    ///   has no position or time (nothing a server would keep).
    public static func send(
        _ fix: Location, to target: UplinkTarget, eventLoopGroup: any EventLoopGroup,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async throws(LocationError) -> Result {
        let settings = try UplinkClient(url: target.url, caFile: target.caFile, timeouts: Uplinks.Timeouts())
        let password = try target.password?.value(environment: environment)
        let token = try target.token?.value(environment: environment)
        guard
            let request = UplinkRequest.make(
                for: target, fixes: [UplinkOutbox.Fix(id: 0, location: fix, moving: nil)], password: password,
                token: token),
            !request.isEmpty
        else {
            throw .usage("the fix has no position or no time: no \(target.protocol.rawValue) server would keep it")
        }
        let connection = settings.open(on: eventLoopGroup)
        do {
            let reply = try await settings.send(request, with: connection)
            await connection.close()
            let (answer, words) = UplinkAnswer.read(reply, from: target)
            return Result(delivered: answer == .delivered, answer: answer, words: words)
        } catch {
            await connection.close()
            let words = Uplinks.describe(error)
            return Result(delivered: false, answer: .retry(reason: words, after: nil), words: words)
        }
    }
}
