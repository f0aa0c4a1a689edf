extension Location {
    /// Whether this fix may become history: the timeline and the motion, the recorded
    /// track, the tile log. Every fix may but a simulated one: the simulator stands in for
    /// the live views only (the page, `last`, `?WATCH`, the events, MQTT's location, each
    /// marked `simulated`), so that nothing it makes up is remembered as having happened.
    public var becomesHistory: Bool { source != .simulated }
}
