import Dispatch
import Foundation
import LocationTestSupport
import Testing

@testable import LocationRegions
@testable import LocationState

/// The derived state "regionMembership": fed by deviceLocation, persisted in real files.
@Suite(.timeLimit(.minutes(10)))
struct RegionMonitorTests {
    static let home = circle("home", lat: 52.5, lon: 13.4, radius: 100)
    static let office = circle("office", lat: 52.52, lon: 13.4, radius: 100)
    static let outside = regionFix(52.51, 13.4)
    static let atHome = regionFix(52.5, 13.4, second: 1)

    @Test func membershipFollowsDeviceLocationAndEventsArriveInOrder() async throws {
        let regions = try RegionSet([Self.home, Self.office])
        let monitor = RegionMonitor(regions: regions, store: nil)
        let deviceLocation = MonitoredState<Location?>(key: "deviceLocation", initialValue: nil)
        let events = Recorder<[RegionEvent]>()
        monitor.events.addListener(events)
        let membership = Recorder<Set<RegionID>>()
        monitor.membership.addListener(membership)
        let queue = DispatchQueue(label: "test.regions")
        let observation = monitor.attach(to: deviceLocation, on: queue)
        defer { observation.cancel() }
        for fix in [Self.outside, Self.atHome, nil, Self.outside, regionFix(52.52, 13.4, second: 3)] {
            deviceLocation ~> fix
        }
        try await events.wait(for: "three transitions") { $0.count >= 3 }
        let kinds = events.changes.flatMap { $0.new.map { "\($0.kind.rawValue) \($0.region)" } }
        #expect(kinds == ["enter home", "leave home", "enter office"])
        try await membership.wait(for: "the office") { $0.last?.new == ["office"] }
        #expect(membership.changes.map(\.new) == [["home"], [], ["office"]])
    }

    /// A restart inside a region fires no fresh enter: the membership comes back from
    /// `regionMembership.json`, and the next fix outside leaves.
    @Test func aRestartInsideARegionFiresNoFreshEnter() throws {
        try withTemporaryDirectory { directory in
            let regions = try RegionSet([Self.home])
            do {
                let first = try RegionMonitor(regions: regions, directory: directory)
                #expect(first.update(with: Self.outside).isEmpty)
                #expect(first.update(with: Self.atHome).map(\.kind) == [.enter])
                try first.flush()
            }
            #expect(FileManager.default.fileExists(atPath: directory + "/regionMembership.json"))
            let second = try RegionMonitor(regions: regions, directory: directory)
            #expect(second.membership.value == ["home"])
            #expect(second.update(with: regionFix(52.5001, 13.4, second: 100)).isEmpty)
            #expect(second.update(with: regionFix(52.51, 13.4, second: 101)).map(\.kind) == [.leave])
        }
    }

    /// A reload keeps the membership of regions that still exist (by id), forgets
    /// removed ones without an event, and settles new ones silently by the last fix.
    @Test func aReloadKeepsMembershipById() throws {
        let monitor = RegionMonitor(regions: try RegionSet([Self.home, Self.office]), store: nil)
        monitor.update(with: Self.outside)
        #expect(monitor.update(with: Self.atHome).map(\.region) == ["home"])
        let moved = circle("home", lat: 52.5001, lon: 13.4, radius: 150)
        let garden = circle("garden", lat: 52.5, lon: 13.4001, radius: 50)
        monitor.replaceRegions(try RegionSet([moved, garden]))
        #expect(monitor.current.inside == ["home", "garden"])
        #expect(monitor.membership.value == ["home", "garden"])
        #expect(monitor.update(with: regionFix(52.5, 13.4, second: 2)).isEmpty)
        #expect(monitor.update(with: Self.outside).map(\.region) == ["garden", "home"])
    }
}
