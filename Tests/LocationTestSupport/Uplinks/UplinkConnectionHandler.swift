import NIOCore
import NIOHTTP1

/// One connection to an ``UplinkServer``: gathers each request (head, body, end) and hands
/// it whole to the server, which answers on the channel.
final class UplinkConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart

    private let core: UplinkServerCore
    private let memory = ConnectionMemory()
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(core: UplinkServerCore) { self.core = core }

    func channelActive(context: ChannelHandlerContext) {
        core.opened(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        core.closed(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return }
            self.head = nil
            let request = RecordedRequest(
                method: head.method.rawValue, target: head.uri, headers: head.headers.map { ($0.name, $0.value) },
                body: body)
            core.received(request, keepAlive: head.isKeepAlive, channel: context.channel, memory: memory)
        }
    }

    /// A request that is not HTTP, or a TLS handshake that failed: the connection is closed.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
