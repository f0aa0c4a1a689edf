/// The fixed reply objects of the control protocol.
enum ControlReply {
    /// The protocol's version: bumped in `minor` for additions, in `major` for changes.
    static let version = #"{"class":"VERSION","release":"locationd","proto_major":1,"proto_minor":0}"#

    /// The acknowledgement of `?WATCH;`.
    static func watch(enabled: Bool) -> String {
        #"{"class":"WATCH","enable":\#(enabled)}"#
    }

    /// What a client beyond the server's limit receives before it is closed.
    static let tooManyClients = error("too many clients")

    /// An error object, as gpsd sends for a request it cannot answer.
    static func error(_ message: String) -> String {
        #"{"class":"ERROR","message":\#(jsonString(message))}"#
    }

    /// `text` as a JSON string literal, quotes included.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                    + String(scalar.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
