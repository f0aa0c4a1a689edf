/// What a listener receives when it falls behind the changes of a state.
public enum DeliveryPolicy: Sendable, Hashable {
    /// Every change, in the order the changes were made; nothing is dropped.
    ///
    /// - Important: changes a slow listener has not yet received wait in its
    ///   buffer, which grows without bound while the listener lags.
    case all
    /// Only the newest change while the listener is behind.
    ///
    /// Pending changes are merged into one: its `new` is the newest value, its
    /// `old` the value the listener saw last (the `old` of the first change it
    /// missed), so consecutive changes still chain. The last change a listener
    /// receives always carries the state's final value.
    case latest
}
