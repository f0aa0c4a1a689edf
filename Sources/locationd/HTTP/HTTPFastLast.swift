import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes

/// `GET /api/v1/last`, the request a dashboard repeats, answered on the connection's
/// event loop as it is read, without the hop into Swift concurrency, the router and
/// the middleware that every other request takes: with it the server answers about
/// twice as many such requests a second (docs/performance.md, `http`).
///
/// It answers only what the router would answer the same way: a `GET` of exactly that
/// path (no query, no trailing slash) that ``HTTPGuard`` lets pass (host, token,
/// body), with no `Connection` header (Hummingbird closes after a `close`), while no
/// request passed on is still being answered (so that answers keep the requests' order
/// when a client pipelines). Everything else goes on to Hummingbird unchanged. The
/// answer is the router's: the same body (``HTTPLastBody``) and header fields.
final class HTTPFastLast: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    static let path = "/api/v1/last"

    private let requestGuard: HTTPGuard
    private let body: @Sendable () -> ByteBuffer
    /// Requests passed on whose answers have not ended.
    private var passedOn = 0
    /// Whether the request being read is answered here, at its end.
    private var answering = false
    /// Whether an answer was written and waits for the end of this read to be flushed.
    private var unflushed = false

    init(guard requestGuard: HTTPGuard, body: @escaping @Sendable () -> ByteBuffer) {
        self.requestGuard = requestGuard
        self.body = body
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if passedOn == 0, answers(head, localPort: context.channel.localAddress?.port) {
                answering = true
                return
            }
            passedOn += 1
        case .body:
            if answering { return }
        case .end:
            if answering {
                answering = false
                answer(context)
                return
            }
        }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { passedOn -= 1 }
        context.write(data, promise: promise)
    }

    /// Whether `head` is a request this handler answers.
    private func answers(_ head: HTTPRequest, localPort: Int?) -> Bool {
        head.method == .get && head.path == Self.path && head.headerFields[.connection] == nil
            && requestGuard.refusal(head, localPort: localPort) == nil
    }

    /// The header fields every answer has, made once: building them for each answer was
    /// 2.5 k of its 75.6 k instructions (docs/performance.md, `http`).
    private static let fields = HTTPAnswer.fields(contentType: "application/json")

    private func answer(_ context: ChannelHandlerContext) {
        let body = body()
        var fields = Self.fields
        fields.append(HTTPField(name: .contentLength, value: String(body.readableBytes)))
        fields.append(HTTPField(name: .date, value: HTTPDate.now()))
        context.write(wrapOutboundOut(.head(HTTPResponse(status: .ok, headerFields: fields))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        unflushed = true
    }
}

/// Hummingbird's HTTP/1.1 channel with an ``HTTPFastLast`` after its connection-state
/// handler, which so sees the requests answered early too (for its idle timeout).
struct HTTP1FastLastChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let http1: HTTP1Channel
    let requestGuard: HTTPGuard
    let body: @Sendable () -> ByteBuffer

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let state = try pipeline.context(handlerType: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(
                HTTPFastLast(guard: requestGuard, body: body), position: .after(state.handler))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}
