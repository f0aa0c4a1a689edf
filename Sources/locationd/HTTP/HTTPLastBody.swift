import Foundation
import LocationState
import NIOCore

/// `/api/v1/last`'s body: `?LAST;`'s answer with `code`, the exit status `locationd last`
/// would give (0 a current fix, 3 a stale or restored one, 4 none).
///
/// A dashboard asks for it many times a second, and the fix changes once a second, or ten
/// times: the TPV members up to the age are written once for each fix shown, kept, and
/// copied into each answer, after which only the age, the state and the code are written.
/// Writing the whole object each time was a ninth of the server's instructions for each
/// request (docs/performance.md, `http`).
final class HTTPLastBody: Sendable {
    private let shown: @Sendable () -> ControlAnswers.ShownFix?
    /// The fix last shown and its TPV members up to the age.
    private let kept = Locked<(fix: Location, head: [UInt8])?>(nil)

    /// - Parameter shown: what `?LAST;` shows now (``ControlResponder/last``).
    init(shown: @escaping @Sendable () -> ControlAnswers.ShownFix?) {
        self.shown = shown
    }

    /// The body at `now`. Called from the server's event loop threads.
    func body(now: Date = Date()) -> ByteBuffer {
        guard let shown = shown() else {
            // The object's closing brace gives way to the code's member.
            var body = ByteBuffer(string: ControlAnswers.noFixKnown)
            body.moveWriterIndex(to: body.writerIndex - 1)
            body.writeString(#","code":\#(ExitStatus.noFix)}"#)
            return body
        }
        var bytes = kept.withLock { kept -> [UInt8] in
            if let kept, kept.fix == shown.fix { return kept.head }
            var head: [UInt8] = []
            head.reserveCapacity(512)
            shown.fix.appendJSONHead(to: &head)
            kept = (shown.fix, head)
            return head
        }
        Location.appendJSONTail(to: &bytes, age: shown.age(at: now), state: shown.state)
        let code = shown.state == "live" ? ExitStatus.currentFix : ExitStatus.staleOrRestoredFix
        bytes.append(contentsOf: #","code":\#(code)}"#.utf8)
        return ByteBuffer(bytes: bytes)
    }
}
