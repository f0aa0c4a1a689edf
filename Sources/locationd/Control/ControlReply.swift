/// The fixed reply objects of the control protocol.
enum ControlReply {
    /// The protocol's version: bumped in `minor` for additions, in `major` for changes.
    static let version = ControlAnswers.line(
        Version(release: "locationd", proto_major: 1, proto_minor: 2))

    /// The acknowledgement of `?WATCH;`.
    static func watch(enabled: Bool) -> String {
        ControlAnswers.line(Watch(enable: enabled))
    }

    /// What a client beyond the server's limit receives before it is closed.
    static let tooManyClients = error("too many clients")

    /// An error object, as gpsd sends for a request it cannot answer.
    static func error(_ message: String) -> String {
        ControlAnswers.line(Failure(message: message))
    }

    // Member names are the protocol's (gpsd's), hence `proto_major`.
    private struct Version: Encodable {
        let `class` = "VERSION"
        let release: String
        let proto_major: Int
        let proto_minor: Int
    }

    private struct Watch: Encodable {
        let `class` = "WATCH"
        let enable: Bool
    }

    private struct Failure: Encodable {
        let `class` = "ERROR"
        let message: String
    }
}
