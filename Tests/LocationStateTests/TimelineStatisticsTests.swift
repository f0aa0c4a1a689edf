import Foundation
import Testing

@testable import LocationState
@testable import LocationTimeline

/// What `locationd stats` adds up: each entry's time and distance in the local periods it lies in.
struct TimelineStatisticsTests {
    static let zurich = LocalDays(named: "Europe/Zurich")!

    static func time(_ text: String) -> Date { UTCCalendar.parseISO8601(text)! }

    static func stay(_ start: String, _ end: String, north: Double = 0) -> TimelineEntry {
        .stay(Stay(start: time(start), end: time(end), latitude: 47.37 + north, longitude: 8.54, radius: 5, fixes: 100))
    }

    static func place(_ stay: Stay) -> (key: String, name: String) {
        let name = String(format: "%.3f", stay.latitude)
        return (name, name)
    }

    static func statistics(
        _ entries: [TimelineEntry], from: String, to: String, by grouping: TimelineStatistics.Grouping = .day,
        days: LocalDays = zurich
    ) -> TimelineStatistics {
        let start = days.interval(ofDay: from)!.lowerBound
        let end = days.interval(ofDay: to)!.upperBound
        return TimelineStatistics(entries, range: start..<end, grouping: grouping, days: days, place: place)
    }

    /// A stay from 23:30 to 07:00 local gives each day its part; the place is one, visited once.
    @Test func aStayOverMidnightIsSharedByItsDays() {
        let stats = Self.statistics(
            [Self.stay("2026-11-23T22:30:00Z", "2026-11-24T06:00:00Z")], from: "2026-11-23", to: "2026-11-24")
        #expect(stats.periods.map(\.name) == ["2026-11-23", "2026-11-24"])
        #expect(stats.periods.map(\.stayed) == [1800, 25_200])
        #expect(stats.periods.map(\.places) == [1, 1])
        #expect(stats.places == [.init(name: "47.370", seconds: 27_000, visits: 1)])
        #expect(stats.total.stays == 1)
    }

    /// A trip over midnight gives each day its distance in proportion to its time there.
    @Test func aTripOverMidnightSplitsItsDistanceByTime() {
        let trip = Trip(
            start: Self.time("2026-11-23T22:50:00Z"), end: Self.time("2026-11-23T23:10:00Z"), distance: 10_000,
            maxSpeed: 20, fixes: 100)
        let stats = Self.statistics([.trip(trip)], from: "2026-11-23", to: "2026-11-24")
        #expect(stats.periods.map(\.distance) == [5000, 5000])
        #expect(stats.periods.map(\.moving) == [600, 600])
        #expect(stats.periods.map(\.trips) == [1, 1])
        #expect(stats.total.distance == 10_000)
    }

    /// Days with a daylight saving change are 23 and 25 hours long.
    @Test func daylightSavingDaysAre23And25Hours() {
        let spring = Self.statistics([], from: "2026-03-29", to: "2026-03-29").periods
        let autumn = Self.statistics([], from: "2026-10-25", to: "2026-10-25").periods
        #expect(spring.map { $0.end.timeIntervalSince($0.start) } == [82_800])
        #expect(autumn.map { $0.end.timeIntervalSince($0.start) } == [90_000])
    }

    /// Weeks are ISO 8601's: from Monday, the first holding the year's first Thursday.
    @Test func weeksAreISOWeeks() {
        #expect(TimelineStatistics.isoWeek("2026-01-01") == "2026-W01")
        #expect(TimelineStatistics.isoWeek("2026-11-23") == "2026-W48")
        #expect(TimelineStatistics.isoWeek("2026-11-29") == "2026-W48")
        #expect(TimelineStatistics.isoWeek("2026-11-30") == "2026-W49")
        #expect(TimelineStatistics.isoWeek("2026-12-31") == "2026-W53")
        #expect(TimelineStatistics.isoWeek("2027-01-03") == "2026-W53")
        #expect(TimelineStatistics.isoWeek("2024-12-30") == "2025-W01")
        let stats = Self.statistics([], from: "2026-11-01", to: "2026-11-30", by: .week)
        #expect(stats.periods.map(\.name) == ["2026-W44", "2026-W45", "2026-W46", "2026-W47", "2026-W48", "2026-W49"])
        #expect(stats.periods.first?.start == Self.zurich.interval(ofDay: "2026-11-01")?.lowerBound)
    }

    /// Months are local: a stay from 23:50 to 00:20 in Kolkata (18:20 to 18:50 UTC, all of
    /// it in November there) gives November 10 minutes and December 20.
    @Test func monthsAreLocal() {
        let kolkata = LocalDays(named: "Asia/Kolkata")!
        let stats = Self.statistics(
            [Self.stay("2026-11-30T18:20:00Z", "2026-11-30T18:50:00Z")], from: "2026-11-01", to: "2026-12-31",
            by: .month, days: kolkata)
        #expect(stats.periods.map(\.name) == ["2026-11", "2026-12"])
        #expect(stats.periods.map(\.stayed) == [600, 1200])
    }

    /// Places are the stays' places: two stays at one place are one place with two visits,
    /// listed before a place with less time.
    @Test func placesAddUpTheirStays() {
        let stats = Self.statistics(
            [
                Self.stay("2026-11-23T06:00:00Z", "2026-11-23T07:00:00Z"),
                Self.stay("2026-11-23T08:00:00Z", "2026-11-23T08:30:00Z", north: 0.01),
                Self.stay("2026-11-24T06:00:00Z", "2026-11-24T07:00:00Z"),
            ], from: "2026-11-23", to: "2026-11-24")
        #expect(
            stats.places == [
                .init(name: "47.370", seconds: 7200, visits: 2), .init(name: "47.380", seconds: 1800, visits: 1),
            ])
        #expect(stats.periods.map(\.places) == [2, 1])
        #expect(stats.total.stays == 3)
        #expect(stats.total.places == 2)
    }
}
