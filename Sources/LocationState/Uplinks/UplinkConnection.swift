import Foundation
import LocationState
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One kept-alive HTTP/1.1 connection, made on SwiftNIO: a request at a time, answered
/// in full or failed, on one event loop.
///
/// It connects when a request needs it: the first time, after the server closed the
/// connection or said `Connection: close`, after a failure, and when a request goes to
/// another origin. HTTPS uses the `tls` settings, with the URL's host name checked against
/// the certificate (an address in the URL is checked against the certificate's addresses).
/// Redirects are answers like any other: nothing is followed.
///
/// - Important: one request at a time. A second `send` while one is under way fails with
///   ``UplinkHTTPError/busy``; the uplinks' senders each own one connection and wait for
///   each answer. Cancelling the task that sends gives the request up at once: its
///   connection is closed, and `send` throws.
package final class UplinkConnection: Sendable {
    /// How long a request may take.
    package struct Limits: Sendable {
        /// Connecting (the TCP connection) at most.
        let connect: TimeAmount
        /// The server's silence in an answer at most, from the request written.
        let read: TimeAmount
        /// A whole request at most, from the start of connecting.
        let request: TimeAmount
        /// Answer bodies are read up to this; the rest is cut off, and the connection closed.
        let answerBytes: Int

        package init(connect: Duration, read: Duration, request: Duration, answerBytes: Int) {
            self.connect = .microseconds(connect.microseconds)
            self.read = .microseconds(read.microseconds)
            self.request = .microseconds(request.microseconds)
            self.answerBytes = answerBytes
        }
    }

    /// A server's answer: its status, header fields and body (up to ``Limits/answerBytes``).
    package struct Answer: Sendable {
        package var status: Int
        package var headers: HTTPHeaders
        package var body: [UInt8]
    }

    private struct State: Sendable {
        var channel: (any Channel)?
        var origin: Origin?
        var busy = false
        /// The request under way was given up (its task cancelled).
        var cancelled = false
    }

    private let eventLoop: any EventLoop
    private let tls: NIOSSLContext?
    private let limits: Limits
    private let state: NIOLoopBoundBox<State>

    /// A connection on one of `group`'s event loops, with `tls` for HTTPS (nil: only HTTP).
    package init(on group: any EventLoopGroup, tls: NIOSSLContext?, limits: Limits) {
        eventLoop = group.next()
        self.tls = tls
        self.limits = limits
        state = NIOLoopBoundBox.makeBoxSendingValue(State(), eventLoop: eventLoop)
    }

    /// Sends a request to `url` and reads the answer.
    ///
    /// - Throws: what went wrong on the way: ``UplinkHTTPError`` (an unusable URL, a
    ///   timeout, a connection closed before the whole answer), or the connection's own
    ///   errors (`IOError`, `NIOConnectionError`, `NIOSSLError`); when the task was
    ///   cancelled, `CancellationError` or the closed connection's error.
    package func send(
        _ method: HTTPMethod = .POST, to url: String, headers: [(name: String, value: String)], body: [UInt8]
    ) async throws -> Answer {
        let started = NIODeadline.now()
        let answer = eventLoop.flatSubmit {
            self.start(method, url: url, headers: headers, body: body, started: started)
        }
        return try await withTaskCancellationHandler {
            try await answer.get()
        } onCancel: {
            // After `start` on the loop: the request it began is the one given up.
            self.eventLoop.execute { self.giveUp() }
        }
    }

    /// On the event loop: the request under way fails, its connection closed; one still
    /// connecting is not written.
    private func giveUp() {
        guard state.value.busy else { return }
        state.value.cancelled = true
        dropChannel()
    }

    /// Closes the connection; a later `send` opens another.
    package func close() async {
        let channel = try? await eventLoop.submit {
            defer { self.state.value.channel = nil }
            return self.state.value.channel
        }.get()
        try? await channel?.close()
    }

    /// On the event loop: the request on a connection to its origin, made if needed.
    private func start(
        _ method: HTTPMethod, url: String, headers: [(name: String, value: String)], body: [UInt8],
        started: NIODeadline
    ) -> EventLoopFuture<Answer> {
        guard !state.value.busy else { return eventLoop.makeFailedFuture(UplinkHTTPError.busy) }
        guard let (origin, path) = Origin.parse(url), origin.secure ? tls != nil : true else {
            return eventLoop.makeFailedFuture(UplinkHTTPError.unusableURL)
        }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: origin.hostField)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if !body.isEmpty || method == .POST || method == .PUT {
            head.headers.replaceOrAdd(name: "Content-Length", value: String(body.count))
        }
        state.value.busy = true
        state.value.cancelled = false
        let deadline = started + limits.request
        let (limits, requestHead) = (limits, head)
        return channel(to: origin, deadline: deadline).flatMap { channel -> EventLoopFuture<Answer> in
            guard !self.state.value.cancelled else { return channel.eventLoop.makeFailedFuture(CancellationError()) }
            let promise = channel.eventLoop.makePromise(of: Answer.self)
            do {
                let reply = try channel.pipeline.syncOperations.handler(type: UplinkReplyHandler.self)
                reply.expect(promise, readTimeout: limits.read, deadline: deadline, answerBytes: limits.answerBytes)
            } catch {
                promise.fail(error)
                return promise.futureResult
            }
            channel.write(HTTPClientRequestPart.head(requestHead), promise: nil)
            if !body.isEmpty {
                channel.write(
                    HTTPClientRequestPart.body(.byteBuffer(channel.allocator.buffer(bytes: body))), promise: nil)
            }
            channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
            return promise.futureResult
        }.always { result in
            self.state.value.busy = false
            if case .failure = result { self.dropChannel() }
        }
    }

    /// The kept connection when it is to `origin` and open; otherwise a new one.
    private func channel(to origin: Origin, deadline: NIODeadline) -> EventLoopFuture<any Channel> {
        if let channel = state.value.channel, state.value.origin == origin, channel.isActive {
            return eventLoop.makeSucceededFuture(channel)
        }
        dropChannel()
        let connectTimeout = min(limits.connect, deadline - .now())
        let tls = origin.secure ? tls : nil
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                do {
                    if let tls {
                        // A name is checked against the certificate's names; an address (no SNI
                        // then) against its addresses.
                        let name = origin.isAddress ? nil : origin.host
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: name))
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(UplinkReplyHandler())
                    return channel.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }
            .connect(host: origin.host, port: origin.port)
            .map { channel in
                self.state.value.channel = channel
                self.state.value.origin = origin
                return channel
            }
    }

    /// Closes the kept connection (after a failure, its state is not known).
    private func dropChannel() {
        state.value.channel?.close(promise: nil)
        state.value.channel = nil
        state.value.origin = nil
    }
}

/// What went wrong on the way to an HTTP server, apart from the connection's own errors.
package enum UplinkHTTPError: Error, Equatable {
    /// Not an `http` or `https` URL with a host (or `https` without TLS settings).
    case unusableURL
    /// No answer began, or the answer stopped, for longer than the read timeout.
    case readTimeout
    /// The whole request took longer than its bound.
    case deadlineExceeded
    /// The server closed the connection before its answer was whole.
    case closedBeforeAnswer
    /// A request was sent while another was under way.
    case busy
}

/// Where a connection goes: scheme, host and port.
private struct Origin: Equatable, Sendable {
    var secure: Bool
    var host: String
    var port: Int

    /// Whether the host is an IP address (IPv4, or IPv6 without its brackets).
    var isAddress: Bool {
        host.contains(":") || host.utf8.allSatisfy { $0 == UInt8(ascii: ".") || (0x30...0x39).contains($0) }
    }

    /// The `Host` header field: the port only when it is not the scheme's.
    var hostField: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The origin of `url` and the request target (path and query).
    static func parse(_ url: String) -> (Origin, String)? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", var host = components.percentEncodedHost, !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let secure = scheme == "https"
        var path = components.percentEncodedPath
        if path.isEmpty { path = "/" }
        if let query = components.percentEncodedQuery { path += "?" + query }
        return (Origin(secure: secure, host: host, port: components.port ?? (secure ? 443 : 80)), path)
    }
}
