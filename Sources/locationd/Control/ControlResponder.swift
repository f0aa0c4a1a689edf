import LocationState

/// What the control socket answers with: JSON objects the daemon builds from its states.
///
/// Each closure returns or sends one JSON object without a trailing newline; the
/// server frames it. They are called from the server's event loop threads.
struct ControlResponder: Sendable {
    /// What `?LAST;` shows (``ControlAnswers/last(_:now:)``), nil when no fix is known.
    var last: @Sendable () -> ControlAnswers.ShownFix?
    /// The answer to `?STATUS;`.
    var status: @Sendable () -> String
    /// Starts a stream for `?WATCH;`: `send` receives one JSON object per change, in
    /// order, from any thread. The returned closure ends the stream.
    var watch: @Sendable (_ send: @escaping @Sendable (String) -> Void) -> @Sendable () -> Void
    /// The answer to `?REGIONS;`; nil when the daemon monitors no regions.
    var regions: (@Sendable () -> String)? = nil
    /// The answer to `?TILES;`: the tile log at `zoom`, or every zoom.
    var tiles: @Sendable (_ zoom: Int?) -> ControlPages = { _ in .line(ControlReply.error(noTiles)) }
    /// The answer to `?TILESTATS;`.
    var tileStatistics: @Sendable (_ zoom: Int?) -> String = { _ in ControlReply.error(noTiles) }
    /// The answer to `?TIMELINE`; nil when the daemon keeps no timeline.
    var timeline: (@Sendable (_ range: TimelineRange) -> ControlPages)? = nil
    /// The answer to `?TRACK`; nil when the daemon records no tracks.
    var track: (@Sendable (_ request: ControlRequest.TrackRequest) -> ControlPages)? = nil
    /// The answer to `?ODOMETER`; nil when the daemon keeps no timeline.
    var odometer: (@Sendable (_ request: OdometerAnswer.Request) -> String)? = nil
    /// The answer to `?PLACES`; nil when the daemon keeps no timeline.
    var places: (@Sendable (_ request: PlacesAnswer.Request) -> ControlPages)? = nil
    /// The zone whose days `?TIMELINE` names.
    var days: LocalDays = .utc
    /// The answer to `?PAGE;`.
    var page: @Sendable () -> String = { ControlAnswers.page(url: nil, token: nil) }

    private static let noTiles = "the tile log is not kept by this daemon"
}
