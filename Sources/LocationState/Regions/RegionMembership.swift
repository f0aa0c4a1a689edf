import Foundation
import LocationState

/// The region membership reducer: a pure function of (previous state, fix, regions, now).
///
/// The rules, after CoreLocation's region monitoring and OwnTracks' transitions:
/// - **Enter** when the fix is inside and good enough: its `eph` is at most
///   ``Options/accuracyBound(for:)`` (the larger of a floor and the region's size:
///   a circle's radius, half a polygon's smaller side). A fix without `eph` (most GPX
///   tracks, NMEA without GST) is judged by its position alone.
/// - **Leave** only when clearly outside: farther from the region than
///   ``Options/leaveMargin(eph:)``, a margin that grows with `eph`. A fix jittering
///   on the border therefore does not flap, and a bad fix does not pull the device out.
/// - **Dwell**: with ``Options/dwell`` above zero an enter counts only once the device
///   has been inside (good fixes) that long; until then the region is pending. Being
///   clearly outside cancels a pending enter, so a pass quicker than the dwell time
///   makes no event.
/// - **Start**: the first usable fix ever (nothing persisted yet) puts the device in
///   the regions it is inside of without an event, as CoreLocation does when
///   monitoring starts; ``Options/notifyInitialState`` asks for enter events instead.
///   Regions added by a reload are settled the same way by `settle(_:adding:fix:options:)`.
/// - No fix (stale, lost, no fix), a fix without a position, and a fix restored from
///   disk change nothing. Simulated fixes make events marked ``RegionEvent/simulated``;
///   replayed fixes count like live ones.
/// - Time is the fix's own time (so a replay dwells in recorded time), else `now`.
public enum RegionMembership {
    /// How strict the reducer is; defaults suit a phone-grade receiver.
    public struct Options: Sendable, Hashable {
        /// How long the device must be inside before an enter counts (0: at once).
        public var dwell: Duration
        /// The leave margin with a perfect fix, metres.
        public var minimumLeaveMargin: Double
        /// How many `eph`s the leave margin adds.
        public var leaveMarginPerEph: Double
        /// The accuracy bound never goes below this, metres.
        public var minimumAccuracyBound: Double
        /// Whether a region's first known state, when inside, is reported as an enter.
        public var notifyInitialState: Bool

        public init(
            dwell: Duration = .zero, minimumLeaveMargin: Double = 10, leaveMarginPerEph: Double = 1,
            minimumAccuracyBound: Double = 25, notifyInitialState: Bool = false
        ) {
            self.dwell = dwell
            self.minimumLeaveMargin = minimumLeaveMargin
            self.leaveMarginPerEph = leaveMarginPerEph
            self.minimumAccuracyBound = minimumAccuracyBound
            self.notifyInitialState = notifyInitialState
        }

        /// The largest `eph` (metres) with which a fix may make an enter into `region`.
        public func accuracyBound(for region: Region) -> Double {
            max(minimumAccuracyBound, region.geometry.size)
        }

        /// How far outside (metres) a fix with this `eph` must be for a leave.
        public func leaveMargin(eph: Double?) -> Double {
            minimumLeaveMargin + leaveMarginPerEph * (eph ?? 0)
        }

        var dwellSeconds: Double {
            dwell.inSeconds
        }
    }

    /// The state after `fix`, and the events of the transition, leaves first, then
    /// enters, each in identifier order.
    public static func next(
        previous: MembershipState, fix: Location?, regions: RegionSet, now: Date, options: Options = Options()
    ) -> (MembershipState, [RegionEvent]) {
        guard let fix, fix.source != .restored, fix.hasPosition, let lat = fix.lat, let lon = fix.lon,
            lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180
        else { return (previous, []) }
        let eph = fix.eph.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        let time = fix.time ?? now
        let simulated = fix.source == .simulated
        var state = previous
        var leaves: [RegionEvent] = []
        var enters: [RegionEvent] = []
        func event(_ kind: RegionEvent.Kind, _ region: Region) -> RegionEvent {
            RegionEvent(
                kind: kind, region: region.id, name: region.name, time: time, lat: lat, lon: lon, eph: eph,
                simulated: simulated)
        }

        let containing = regions.indices(containing: lat, lon)
        // A fix is inside few regions: a small array beats a set.
        var insideNow: [RegionID] = []
        insideNow.reserveCapacity(containing.count)
        for index in containing {
            let region = regions.regions[index]
            insideNow.append(region.id)
            if state.inside.contains(region.id) {
                if state.pendingSince[region.id] != nil { state.pendingSince[region.id] = nil }
                continue
            }
            guard eph.map({ $0 <= options.accuracyBound(for: region) }) ?? true else { continue }
            if !state.settled {
                state.inside.insert(region.id)
                if options.notifyInitialState { enters.append(event(.enter, region)) }
                continue
            }
            if options.dwell > .zero {
                guard let since = state.pendingSince[region.id], since <= time else {
                    state.pendingSince[region.id] = time
                    continue
                }
                guard time.timeIntervalSince(since) >= options.dwellSeconds else { continue }
            }
            state.pendingSince[region.id] = nil
            state.inside.insert(region.id)
            enters.append(event(.enter, region))
        }

        // Members and pending regions that do not contain the fix: only a
        // fix clearly outside changes them.
        let margin = options.leaveMargin(eph: eph)
        func clearlyOutside(_ region: Region) -> Bool {
            region.geometry.distanceOutside(lat: lat, lon: lon) > margin
        }
        for id in previous.inside where !insideNow.contains(id) {
            guard let region = regions[id] else {
                state.inside.remove(id)
                continue
            }
            if clearlyOutside(region) {
                state.inside.remove(id)
                leaves.append(event(.leave, region))
            }
        }
        for id in previous.pendingSince.keys where !insideNow.contains(id) {
            if let region = regions[id], !clearlyOutside(region) { continue }
            state.pendingSince[id] = nil
        }
        if !state.settled { state.settled = true }
        if leaves.isEmpty, enters.isEmpty { return (state, []) }
        leaves.sort { $0.region < $1.region }
        enters.sort { $0.region < $1.region }
        return (state, leaves + enters)
    }

    /// The state with the regions `added` (new in a reloaded region file) settled by
    /// the latest fix: those it is inside of (accurately enough) join silently, as
    /// when monitoring starts. Without a usable fix nothing changes, and the new
    /// regions wait for ordinary enters.
    public static func settle(
        _ state: MembershipState, adding added: Set<RegionID>, regions: RegionSet, fix: Location?,
        options: Options = Options()
    ) -> MembershipState {
        guard let fix, fix.hasPosition, let lat = fix.lat, let lon = fix.lon, lat.isFinite, lon.isFinite else {
            return state
        }
        var state = state
        for region in regions.regions(containing: lat, lon) where added.contains(region.id) {
            if fix.eph.map({ $0 <= options.accuracyBound(for: region) }) ?? true { state.inside.insert(region.id) }
        }
        return state
    }
}
