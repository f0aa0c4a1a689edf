extension TimelineEvent {
    /// The event's JSON line (no newline): a MOTION, STAY, TRIP or DROP object.
    public func appendJSON(to out: inout [UInt8]) {
        switch self {
        case .motion(let motion): motion.appendJSON(to: &out)
        case .stayClosed(let stay): stay.appendJSON(to: &out)
        case .tripClosed(let trip): trip.appendJSON(to: &out)
        case .stayDropped(let stay): stay.appendDropJSON(to: &out)
        }
    }

    /// The JSON line as a String.
    public var jsonString: String {
        var bytes: [UInt8] = []
        appendJSON(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
