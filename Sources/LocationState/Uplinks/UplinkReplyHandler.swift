import NIOCore
import NIOHTTP1

/// The last handler of an ``UplinkConnection``'s pipeline: reads one answer for each
/// request, into the promise the request gave, within its read timeout and deadline.
///
/// A failure (a timeout, the connection closed or in error, an answer nobody asked for)
/// fails the request and closes the connection, so that the next request starts on a
/// fresh one. A body longer than the bound is cut off there, and the connection closed.
final class UplinkReplyHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    private struct Pending {
        var promise: EventLoopPromise<UplinkConnection.Answer>
        var readTimeout: TimeAmount
        var answerBytes: Int
        var silence: Scheduled<Void>?
        var deadline: Scheduled<Void>
        var answer: UplinkConnection.Answer?
        var keepAlive = true
    }

    private var pending: Pending?
    private var context: ChannelHandlerContext?

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        fail(UplinkHTTPError.closedBeforeAnswer)
    }

    /// The next answer goes to `promise`, unless the server is silent for `readTimeout`
    /// or the answer is not whole at `deadline`.
    func expect(
        _ promise: EventLoopPromise<UplinkConnection.Answer>, readTimeout: TimeAmount, deadline: NIODeadline,
        answerBytes: Int
    ) {
        guard let context else {
            promise.fail(UplinkHTTPError.closedBeforeAnswer)
            return
        }
        let loop = context.eventLoop
        pending = Pending(
            promise: promise, readTimeout: readTimeout, answerBytes: answerBytes, silence: nil,
            deadline: loop.assumeIsolated().scheduleTask(deadline: deadline) {
                self.fail(UplinkHTTPError.deadlineExceeded)
            })
        heard()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard var current = pending else {
            // An answer nobody asked for: the connection is out of step.
            context.close(promise: nil)
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            current.answer = UplinkConnection.Answer(status: Int(head.status.code), headers: head.headers, body: [])
            current.keepAlive = head.isKeepAlive
        case .body(let buffer):
            let room = current.answerBytes - (current.answer?.body.count ?? 0)
            current.answer?.body += buffer.readableBytesView.prefix(max(0, room))
            if buffer.readableBytes > room {
                pending = current
                finish(closing: true)
                return
            }
        case .end:
            pending = current
            finish(closing: !current.keepAlive)
            return
        }
        pending = current
        heard()
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(UplinkHTTPError.closedBeforeAnswer)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
        context.close(promise: nil)
    }

    /// The server said something: the read timeout starts again.
    private func heard() {
        guard let context, let readTimeout = pending?.readTimeout else { return }
        pending?.silence?.cancel()
        pending?.silence = context.eventLoop.assumeIsolated().scheduleTask(in: readTimeout) {
            self.fail(UplinkHTTPError.readTimeout)
        }
    }

    /// The answer is whole (or as long as it may be): the request gets it.
    private func finish(closing: Bool) {
        guard let current = pending else { return }
        pending = nil
        current.silence?.cancel()
        current.deadline.cancel()
        if closing { context?.close(promise: nil) }
        if let answer = current.answer {
            current.promise.succeed(answer)
        } else {
            current.promise.fail(UplinkHTTPError.closedBeforeAnswer)
        }
    }

    /// The request under way fails with `error`, and the connection closes.
    private func fail(_ error: any Error) {
        guard let current = pending else { return }
        pending = nil
        current.silence?.cancel()
        current.deadline.cancel()
        context?.close(promise: nil)
        current.promise.fail(error)
    }
}
