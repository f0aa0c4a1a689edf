import LocationState

extension TimelineEvent: JSONLine {
    /// The event's JSON line (no newline): a MOTION, STAY, TRIP or DROP object.
    public func appendJSON(to out: inout [UInt8]) {
        switch self {
        case .motion(let motion): motion.appendJSON(to: &out)
        case .stayClosed(let stay): stay.appendJSON(to: &out)
        case .tripClosed(let trip): trip.appendJSON(to: &out)
        case .stayDropped(let stay): stay.appendDropJSON(to: &out)
        }
    }
}
