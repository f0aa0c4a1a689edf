import Dispatch
import Foundation
import LocationState
import Logging

/// The derived state "regionMembership": which regions the device is in, kept up to
/// date from `deviceLocation` by ``RegionMembership``, persisted, with its events.
///
/// ``update(with:now:)`` runs the reducer for one change of the location; attached
/// with `attach(to:)`, it runs for every change, in order, on a queue of its own.
/// ``membership`` changes only when the set of regions changes; ``events`` receives
/// the events of each transition (one array per fix that made any). With a
/// ``PersistentState`` the whole membership (including pending enters) survives a
/// restart, so the device being where it was fires no fresh enter.
public final class RegionMonitor: Sendable {
    /// The regions the device is in.
    public let membership: MonitoredState<Set<RegionID>>
    /// The events of each transition, in order; listen with policy `.all`.
    public let events: MonitoredState<[RegionEvent]>
    public let options: RegionMembership.Options
    private let stored: PersistentState<MembershipState>?
    private let state: Locked<Current>

    private struct Current {
        var regions: RegionSet
        var membership: MembershipState
        var lastFix: Location?
    }

    /// The persistence key, and the file `regionMembership.json` in the data directory.
    public static let key = DataDirectory.Name.regionMembershipKey

    /// A monitor of `regions`, starting from what `store` holds (kept to the regions
    /// that still exist), or from nothing without a store.
    public init(
        regions: RegionSet, options: RegionMembership.Options = .init(), store: PersistentState<MembershipState>?
    ) {
        self.options = options
        stored = store
        let initial = (store?.value ?? .initial).retaining(regions)
        state = Locked(Current(regions: regions, membership: initial, lastFix: nil))
        membership = MonitoredState(key: Self.key, initialValue: initial.inside)
        events = MonitoredState(key: "regionEvents", initialValue: [])
    }

    /// Opens `regionMembership.json` in `directory` and monitors `regions` from there.
    public convenience init(
        regions: RegionSet, options: RegionMembership.Options = .init(), directory: String,
        logger: Logger = Logger(label: "locationd.regions")
    ) throws {
        let store = try PersistentState(
            key: Self.key, defaultValue: MembershipState.initial, directory: directory, writeInterval: .seconds(1),
            logger: logger)
        self.init(regions: regions, options: options, store: store)
    }

    /// The regions watched now.
    public var regions: RegionSet { state.withLock { $0.regions } }

    /// The full membership, pending enters included.
    public var current: MembershipState { state.withLock { $0.membership } }

    /// Runs the reducer for one value of the device location and publishes the result;
    /// returns the events.
    @discardableResult
    public func update(with fix: Location?, now: Date = Date()) -> [RegionEvent] {
        state.withLock { current in
            if fix?.hasPosition == true, fix?.source != .restored { current.lastFix = fix }
            let (next, events) = RegionMembership.next(
                previous: current.membership, fix: fix, regions: current.regions, now: now, options: options)
            publish(from: current.membership, to: next, events: events)
            current.membership = next
            return events
        }
    }

    /// Watches `regions` from now on: the membership of regions that still exist (by
    /// identifier) is kept, regions that are gone are forgotten without an event, and
    /// new ones are settled by the latest fix without one.
    public func replaceRegions(_ regions: RegionSet) {
        state.withLock { current in
            let added = Set(regions.regions.map(\.id).filter { !current.regions.contains($0) })
            let kept = current.membership.retaining(regions)
            let next = RegionMembership.settle(
                kept, adding: added, regions: regions, fix: current.lastFix, options: options)
            publish(from: current.membership, to: next, events: [])
            current.regions = regions
            current.membership = next
        }
    }

    /// Runs ``update(with:now:)`` for every change of `deviceLocation`, in order, on
    /// `queue` (a serial queue of its own by default), until the token is cancelled.
    public func attach(to deviceLocation: MonitoredState<Location?>, on queue: DispatchQueue? = nil)
        -> StateObservation
    {
        deviceLocation.observe(
            on: queue ?? DispatchQueue(label: "locationd.regions.membership"), policy: .all, sendingCurrentValue: true
        ) { [self] change in
            update(with: change.new)
        }
    }

    /// Writes the membership now if it is not stored yet.
    public func flush() throws {
        try stored?.flush()
    }

    private func publish(from old: MembershipState, to new: MembershipState, events: [RegionEvent]) {
        if old != new { stored.map { $0 ~> new } }
        if old.inside != new.inside { membership ~> new.inside }
        if !events.isEmpty { self.events ~> events }
    }
}
