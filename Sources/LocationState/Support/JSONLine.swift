/// A value written as one line of locationd's JSON protocol, straight into bytes.
public protocol JSONLine {
    /// Appends the line (no newline) to `out`.
    func appendJSON(to out: inout [UInt8])
}

extension JSONLine {
    /// The line as a String.
    public var jsonString: String {
        var bytes: [UInt8] = []
        appendJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
