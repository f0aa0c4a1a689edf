import Foundation
import LocationTestSupport
import Testing

@testable import LocationRegions
@testable import LocationState

/// The membership reducer, table-driven, without threads or clocks.
@Suite(.timeLimit(.minutes(10)))
struct RegionMembershipTests {
    /// The walk sample track (300 fixes, about 1.4 m/s eastwards through the Tiergarten).
    static func walk() async throws -> [Location] {
        fixes(try await replay(Repository.sampleTrack("walk.nmea")).0)
    }

    /// A circle and a polygon on the walk: each entered and left exactly once, at the
    /// first fix inside and at the first fix more than the leave margin (10 m + eph;
    /// replayed NMEA has gpsd's eph from HDOP, 17.1 m) outside.
    @Test func aTrackCrossesACircleAndAPolygon() async throws {
        let track = try await Self.walk()
        let middle = track[80]
        let late = track[220]
        let circleRegion = circle("circle", lat: middle.lat!, lon: middle.lon!, radius: 30)
        let square = try polygon(
            "square",
            [
                rectangle(
                    west: late.lon! - 0.0003, south: late.lat! - 0.0003, east: late.lon! + 0.0003,
                    north: late.lat! + 0.0003)
            ])
        let regions = try RegionSet([circleRegion, square])
        let (state, events) = runMembership(track, regions: regions)

        func firstIndex(after start: Int = 0, where condition: (Location) -> Bool) -> Int? {
            track.indices.first { $0 >= start && condition(track[$0]) }
        }
        let distance = { (fix: Location) in
            Geodesy.greatCircleDistance(fix.lat!, fix.lon!, middle.lat!, middle.lon!)
        }
        let circleEnter = try #require(firstIndex { distance($0) <= 30 })
        let circleLeave = try #require(firstIndex(after: circleEnter) { distance($0) > 30 + 10 + ($0.eph ?? 0) })
        let (west, east) = (late.lon! - 0.0003, late.lon! + 0.0003)
        let (south, north) = (late.lat! - 0.0003, late.lat! + 0.0003)
        let squareEnter = try #require(
            firstIndex { $0.lon! >= west && $0.lon! <= east && $0.lat! >= south && $0.lat! <= north })
        let metresOutside = { (fix: Location) -> Double in
            let dx = max(west - fix.lon!, 0, fix.lon! - east) * metersPerDegree * cos(fix.lat! * Double.pi / 180)
            let dy = max(south - fix.lat!, 0, fix.lat! - north) * metersPerDegree
            return (dx * dx + dy * dy).squareRoot()
        }
        let squareLeave = try #require(firstIndex(after: squareEnter) { metresOutside($0) > 10 + ($0.eph ?? 0) })
        let summary = events.map { "\($0.event.kind.rawValue) \($0.event.region) \($0.index)" }
        #expect(
            summary == [
                "enter circle \(circleEnter)", "leave circle \(circleLeave)", "enter square \(squareEnter)",
                "leave square \(squareLeave)",
            ])
        #expect(circleLeave - circleEnter > 40 && squareEnter > circleLeave)
        #expect(state.inside.isEmpty)
        #expect(events.allSatisfy { $0.event.time == track[$0.index].time && !$0.event.simulated })
    }

    static let home = circle("home", lat: 52.5, lon: 13.4, radius: 100)

    /// Latitude of a point `metres` north of home's centre.
    static func north(_ metres: Double) -> Double { 52.5 + metres / metersPerDegree }

    /// A fix `metres` north of home's centre.
    static func at(
        _ metres: Double, second: Double = 0, eph: Double? = nil, source: FixSource = .gpsd
    ) -> Location? {
        regionFix(north(metres), 13.4, second: second, eph: eph, source: source)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let fixes: [Location?]
        let options: RegionMembership.Options
        let expected: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a fix bouncing on the border enters once and never leaves",
            fixes: [at(150), at(97)] + (0..<20).map { at($0.isMultiple(of: 2) ? 104 : 97) },
            options: .init(), expected: ["enter home 1"]),
        Case(
            name: "a bad fix inside does not enter; a good one does",
            fixes: [at(500), at(50, eph: 150), at(50, eph: 30)],
            options: .init(), expected: ["enter home 2"]),
        Case(
            name: "a bad fix outside does not leave; the margin grows with eph",
            fixes: [at(500), at(50), at(140, eph: 50), at(140, eph: 20)],
            options: .init(), expected: ["enter home 1", "leave home 3"]),
        Case(
            name: "no fix, a restored fix and a fix without position change nothing",
            fixes: [
                at(500), nil, at(0, source: .restored),
                Location(time: Date(timeIntervalSince1970: 1_795_000_003), mode: .noFix, source: .gpsd), nil, at(1000),
            ],
            options: .init(), expected: []),
        Case(
            name: "a pass faster than the dwell time enters nothing",
            fixes: (0..<40).map { at(-200 + Double($0) * 10, second: Double($0)) },
            options: .init(dwell: .seconds(30)), expected: []),
        Case(
            name: "staying for the dwell time enters once, at the fix that completes it",
            fixes: [at(500, second: 0)]
                + (1...40).map { at(0, second: Double($0)) },
            options: .init(dwell: .seconds(30)), expected: ["enter home 31"]),
        Case(
            name: "simulated fixes make simulated events",
            fixes: [
                at(500, source: .simulated), at(0, source: .simulated),
                at(500, source: .simulated),
            ],
            options: .init(), expected: ["enter home 1 simulated", "leave home 2 simulated"]),
        Case(
            name: "replayed fixes count like live ones",
            fixes: [at(500, source: .replay), at(0, source: .replay)],
            options: .init(), expected: ["enter home 1"]),
    ]

    @Test(arguments: cases)
    func transitions(_ testCase: Case) throws {
        let (_, events) = runMembership(testCase.fixes, regions: try RegionSet([Self.home]), options: testCase.options)
        #expect(
            events.map {
                "\($0.event.kind.rawValue) \($0.event.region) \($0.index)" + ($0.event.simulated ? " simulated" : "")
            }
                == testCase.expected)
    }

    /// As CoreLocation: the first fix puts the device where it is without an event, unless asked.
    @Test(arguments: [false, true])
    func theInitialStateIsSilentUnlessAsked(notify: Bool) throws {
        let regions = try RegionSet([Self.home])
        let (state, events) = runMembership(
            [regionFix(52.5, 13.4), regionFix(Self.north(500), 13.4)], regions: regions,
            options: .init(notifyInitialState: notify), start: .initial)
        #expect(events.map(\.event.kind) == (notify ? [.enter, .leave] : [.leave]))
        #expect(state.settled && state.inside.isEmpty)
    }
}

/// A track straight through a polygon with a hole: in, out into the hole, in again, out.
@Suite(.timeLimit(.minutes(10)))
struct RegionHoleTests {
    @Test func aTrackThroughAHoleLeavesAndEntersAgain() throws {
        let donut = try polygon(
            "donut",
            [
                rectangle(west: 13.0, south: 52.0, east: 13.1, north: 52.1),
                rectangle(west: 13.04, south: 52.0, east: 13.06, north: 52.1).map {
                    ($0.0, $0.1 == 52.0 ? 52.02 : 52.08)
                },
            ])
        // Eastwards along 52.05 N, every 0.001° (about 68 m).
        let fixes: [Location?] = (0...120).map { step in regionFix(52.05, 12.99 + Double(step) * 0.001) }
        let (_, events) = runMembership(fixes, regions: try RegionSet([donut]))
        #expect(
            events.map { "\($0.event.kind.rawValue) \(String(format: "%.3f", $0.event.lon))" } == [
                "enter 13.000", "leave 13.041", "enter 13.060", "leave 13.101",
            ])
    }
}
