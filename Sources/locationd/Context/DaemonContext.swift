import Dispatch
import Foundation
import LocationMQTT
import LocationProviders
import LocationState
import LocationStores
import LocationTimeline
import LocationUplinks
import Logging

/// What the daemon's services are made from: its configuration, states, stores and
/// counters, opened once at start (``open(configuration:logger:)``, the one place they are
/// made) and handed to every service.
///
/// A new service takes the context rather than a parameter per thing it reads; a new
/// thing the daemon makes is one more field here.
struct DaemonContext: Sendable {
    /// The configuration the daemon started with.
    var configuration: DaemonConfiguration
    var logger: Logger
    /// When the daemon started, for the uptime it reports.
    var startedAt = Date()
    /// Turns the source's reports into the current fix and the source's status.
    let coordinator: LocationCoordinator
    /// Makes gpsd's reports of one receiver epoch one fix (made here so that whatever
    /// follows the epochs can be attached before its service runs).
    let epochs: Epochs
    /// The map tiles the device passed through, logged.
    let tiles: TileLogger
    /// The current fix; `nil` when none is current.
    var deviceLocation: MonitoredState<Location?> { coordinator.deviceLocation }
    /// One fix per receiver epoch, for the listeners that record or publish.
    var epochLocation: MonitoredState<Location?> { epochs.epochLocation }
    /// The location source's status.
    var status: MonitoredState<ProviderStatus> { coordinator.status }
    /// The fixes seen since start, and the newest.
    var counter = FixCounter()
    /// The last fix kept on disk, for when none is current.
    var lastFix: LastFixStore
    /// Where the listeners run: one serial queue, so that a fix wakes one thread for all.
    let listeners: DispatchQueue
    /// Where what the clients watch is made (the control socket's watchers, the HTTP event
    /// streams): one serial queue for all of them, so that a fix wakes one more thread
    /// however many clients there are. Each libdispatch worker thread keeps a cache of up
    /// to 1,024 spent work items (80 KiB); a queue per client woke a thread per client,
    /// and the daemon held 30 threads whose caches filled over an hour.
    let watchers = DispatchQueue(label: "locationd.watchers")
    /// The region monitoring, when a region file is configured.
    var regions: RegionMonitoring? = nil
    /// Motion, stays and trips, stored in the data directory's timeline.
    var timeline: TimelineRecorder? = nil
    /// The MQTT publisher, when MQTT is on.
    var mqtt: MQTTPublisher? = nil
    /// The HTTP servers the fixes are sent to, when any is configured.
    var uplinks: Uplinks? = nil
    /// The HTTP server's bearer token: read at start from `http-token-file`, or the daemon's
    /// own when its socket is shared (``HTTPToken``); `nil` when the server asks for none.
    var httpToken: [UInt8]? = nil
    /// The HTTP server's URL with the port it bound, as a browser here opens it, once it listens.
    let httpURL = Locked<String?>(nil)
    /// The process's signals, taken before anything else starts; `nil` where no signals
    /// are handled (tests that run services alone).
    var signals: ProcessSignals? = nil
    /// What SIGHUP does, once the daemon knows where its configuration comes from.
    var configurationReload: ConfigurationReload? = nil
}
