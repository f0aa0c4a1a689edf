import Foundation
import Testing

/// A plain HTTP/1.1 client over a TCP socket, for tests: what a request really puts
/// on the wire and gets back, without a client library's retries or caches.
package struct HTTPTestClient: Sendable {
    /// An answer: status, header fields (names in lower case) and the body, de-chunked.
    package struct Answer: Sendable {
        package let status: Int
        package let headers: [String: String]
        package let body: String

        /// The body as a JSON object.
        package func object(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
            try #require(
                try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any],
                "not a JSON object: \(body.prefix(200))", sourceLocation: sourceLocation)
        }
    }

    package let port: Int

    /// How long a read waits for the server before the exchange fails.
    package let receiveTimeout: Int

    /// A client of 127.0.0.1:`port`; `receiveTimeout`: see ``connectHandle(_:to:receiveTimeout:)``.
    package init(port: Int, receiveTimeout: Int = 30) {
        self.port = port
        self.receiveTimeout = receiveTimeout
    }

    /// `GET path` with `headers`; reads until the server closes (`Connection: close`).
    package func get(_ path: String, headers: [String: String] = [:]) async throws -> Answer {
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            + headers.map { "\($0.key): \($0.value)\r\n" }.joined() + "\r\n"
        return try await send(Data(request.utf8))
    }

    /// `METHOD path` with a JSON body (or none) and `headers`; reads until the server closes.
    package func request(
        _ method: String, _ path: String, json: Any? = nil, headers: [String: String] = [:]
    ) async throws -> Answer {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) } ?? Data()
        return try await request(method, path, body: body, type: "application/json", headers: headers)
    }

    /// `POST path` with an HTML form's fields (`application/x-www-form-urlencoded`).
    package func post(_ path: String, form: [String: String], headers: [String: String] = [:]) async throws -> Answer {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = form.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)"
        }
        return try await request(
            "POST", path, body: Data(encoded.joined(separator: "&").utf8), type: "application/x-www-form-urlencoded",
            headers: headers)
    }

    private func request(
        _ method: String, _ path: String, body: Data, type: String, headers: [String: String]
    ) async throws -> Answer {
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            + headers.map { "\($0.key): \($0.value)\r\n" }.joined()
            + "Content-Type: \(type)\r\nContent-Length: \(body.count)\r\n\r\n"
        return try await send(Data(head.utf8) + body)
    }

    /// Sends raw bytes as a request and reads the answer until the server closes.
    package func send(_ request: Data) async throws -> Answer {
        let (port, timeout) = (port, receiveTimeout)
        return try await offThePool { try Self.exchange(request, port: port, receiveTimeout: timeout) }
    }

    /// Sends a request and reads its answer, blocking the calling thread.
    package static func exchange(_ request: Data, port: Int, receiveTimeout: Int = 30) throws -> Answer {
        let handle = try connectTCP(port: port, receiveTimeout: receiveTimeout)
        try handle.write(contentsOf: request)
        let (data, ending) = readToEnd(handle)
        do {
            return try parse(data, ending: ending)
        } catch var error as NoAnswer {
            error.request = String(decoding: request.prefix { $0 != UInt8(ascii: "\r") }, as: UTF8.self)
            throw error
        }
    }

    /// Opens `GET path` and returns the connection once the answer's head is read;
    /// the caller reads the body (an event stream) line by line.
    package func open(_ path: String, receiveBuffer: Int32? = nil) async throws -> (status: Int, stream: FileHandle) {
        let port = port
        return try await offThePool {
            let handle = try connectTCP(port: port, receiveBuffer: receiveBuffer)
            try handle.write(contentsOf: Data("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            var status = 0
            while let line = readLineBlocking(handle) {
                if status == 0 { status = Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1 }
                if line == "\r" || line.isEmpty { break }
            }
            return (status, handle)
        }
    }

    /// Reads one answer: to its `Content-Length`, to the last chunk, or else until the
    /// server closes; with how the reading ended when it did not end complete.
    private static func readToEnd(_ handle: FileHandle) -> (Data, ending: String) {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !isComplete(data) {
            let count = read(handle.fileDescriptor, &buffer, buffer.count)
            // A signal (a child process of another test ending) is no end of the answer.
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                return (data, count < 0 ? String(cString: strerror(errno)) : "the server closed the connection")
            }
            data.append(contentsOf: buffer[0..<count])
        }
        return (data, "")
    }

    /// Whether `data` holds a whole answer (head and the body its head announces).
    private static func isComplete(_ data: Data) -> Bool {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
        if let line = head.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        {
            return data.count - end.upperBound >= length
        }
        if head.contains("transfer-encoding: chunked") {
            // The last chunk ends the data (no trailers): look at the end only, so that
            // reading a long answer stays linear.
            return data.suffix(7).elementsEqual("\r\n0\r\n\r\n".utf8)
                || data[end.upperBound...].elementsEqual("0\r\n\r\n".utf8)
        }
        return false
    }

    /// Splits an HTTP/1.1 answer into status, headers and (de-chunked) body; `ending` says
    /// how the reading ended, for the error when the head is not whole.
    package static func parse(_ data: Data, ending: String = "") throws -> Answer {
        let bytes = [UInt8](data)
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw NoAnswer(bytes: bytes.count, reason: ending)
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? -1
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(bytes[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            var plain: [UInt8] = []
            var index = 0
            while let lineEnd = (index..<max(index, body.count - 1)).first(where: {
                body[$0] == 13 && body[$0 + 1] == 10
            }),
                let size = Int(String(decoding: body[index..<lineEnd], as: UTF8.self), radix: 16), size > 0,
                lineEnd + 2 + size <= body.count
            {
                plain += body[(lineEnd + 2)..<(lineEnd + 2 + size)]
                index = lineEnd + 2 + size + 2
            }
            body = plain
        }
        return Answer(status: status, headers: headers, body: String(decoding: body, as: UTF8.self))
    }
}

/// Opens a TCP connection to `127.0.0.1:port`, with a 30 s receive timeout.
package func connectTCP(port: Int, receiveBuffer: Int32? = nil, receiveTimeout: Int = 30) throws -> FileHandle {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    if var size = receiveBuffer {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    return try connectHandle(fd, to: loopbackAddress(port: port), receiveTimeout: receiveTimeout)
}

/// Reads Server-Sent Events from a stream: each event's name and data, skipping
/// comments and chunk-size lines; nil when the stream ends.
package func readEvent(_ handle: FileHandle) async -> (event: String, data: String)? {
    await offThePool {
        var event = "message"
        var data: String?
        while let raw = readLineBlocking(handle) {
            let line = raw.hasSuffix("\r") ? String(raw.dropLast()) : raw
            if line.hasPrefix("event: ") {
                event = String(line.dropFirst(7))
            } else if line.hasPrefix("data: ") {
                data = String(line.dropFirst(6))
            } else if line.isEmpty, let data {
                return (event, data)
            }
        }
        return nil
    }
}

/// An exchange the server ended without a whole HTTP head: how much came and why it ended.
package struct NoAnswer: Error, CustomStringConvertible {
    package var bytes: Int
    package var reason: String
    /// The request's first line, when known.
    package var request = ""
    package var description: String {
        "no HTTP answer\(request.isEmpty ? "" : " to \(request)"): \(bytes) bytes, then \(reason)"
    }
}
