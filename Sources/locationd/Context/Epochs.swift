import LocationProviders
import LocationState

/// "epochLocation": one fix per receiver epoch, derived from `deviceLocation` by
/// ``EpochMerger``, for the listeners that record or publish (tiles, track, last fix,
/// regions, motion, MQTT).
///
/// `deviceLocation` keeps every report as it comes, so `locationd last`, the control
/// socket and the HTTP views show an epoch's first report at once; "epochLocation" gets
/// the epoch, merged, when its last expected report arrives (docs/gpsd-epochs.md).
/// ``EpochService`` hands it the reports while the daemon runs, and the epoch it still
/// holds at the end; it is made with the context so that whatever follows the epochs can
/// be attached before that service runs.
///
/// - Important: call ``receive(_:)`` and ``flush()`` from one serial queue (the daemon's
///   listeners' queue): "epochLocation" is written from there, in the reports' order.
public final class Epochs: Sendable {
    /// One fix per epoch, or nil when there is no current fix.
    public let epochLocation = MonitoredState<Location?>(key: "epochLocation", initialValue: nil)
    private let merger = Locked(EpochMerger())

    public init() {}

    /// Hands the merger a new value of `deviceLocation`; writes each fix it completes.
    public func receive(_ report: Location?) {
        for value in merger.withLock({ $0.receive(report) }) { epochLocation ~> value }
    }

    /// Writes the epoch still held, if any: the source has stopped, no report will end it.
    public func flush() {
        if let held = merger.withLock({ $0.flush() }) { epochLocation ~> held }
    }
}
