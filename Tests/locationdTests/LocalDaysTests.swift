import Foundation
import Hummingbird
import LocationMQTT
import LocationState
import LocationTestSupport
import LocationTimeline
import Logging
import Testing

@testable import locationd

/// Days in the device's time zone, the zone passed as a value: where a day begins and ends
/// (23 and 25 hour days, half and quarter hour zones), a stay over local midnight in both
/// days' views, and MQTT's distance of the day, which ends at local midnight.
@Suite(.timeLimit(.minutes(5)))
struct LocalDaysTests {
    /// A day of a zone: its first instant in UTC and its length.
    struct Day: Sendable, CustomTestStringConvertible {
        let zone: String
        let day: String
        let start: String
        let hours: Double
        var testDescription: String { "\(zone) \(day)" }

        var days: LocalDays {
            get throws { try #require(LocalDays(named: zone)) }
        }
        var startDate: Date {
            get throws { try #require(UTCCalendar.parseISO8601(start)) }
        }
        /// The first instant of the next day, from the table (not from the code under test).
        var midnight: Date {
            get throws { try startDate.addingTimeInterval(hours * 3600) }
        }
        /// The next day, `YYYY-MM-DD`.
        var next: String {
            get throws {
                let noon = try #require(UTCCalendar.parseISO8601(day + "T12:00:00Z"))
                return String(UTCCalendar.iso8601(noon.addingTimeInterval(86_400)).prefix(10))
            }
        }
    }

    static let days = [
        Day(zone: "Europe/Zurich", day: "2026-03-29", start: "2026-03-28T23:00:00Z", hours: 23),
        Day(zone: "Europe/Zurich", day: "2026-10-25", start: "2026-10-24T22:00:00Z", hours: 25),
        Day(zone: "Europe/Zurich", day: "2026-11-23", start: "2026-11-22T23:00:00Z", hours: 24),
        Day(zone: "Asia/Kolkata", day: "2026-11-23", start: "2026-11-22T18:30:00Z", hours: 24),
        Day(zone: "Pacific/Chatham", day: "2026-11-23", start: "2026-11-22T10:15:00Z", hours: 24),
        Day(zone: "Pacific/Chatham", day: "2026-04-05", start: "2026-04-04T10:15:00Z", hours: 25),
        Day(zone: "America/St_Johns", day: "2026-11-23", start: "2026-11-23T03:30:00Z", hours: 24),
        Day(zone: "America/St_Johns", day: "2026-03-08", start: "2026-03-08T03:30:00Z", hours: 23),
        Day(zone: "UTC", day: "2026-11-23", start: "2026-11-23T00:00:00Z", hours: 24),
    ]

    /// A day runs from its local midnight to the next, 23 or 25 hours across a daylight
    /// saving change; the timeline, the HTTP API and the track export read it alike.
    @Test(arguments: days)
    func aDayRunsFromLocalMidnightToLocalMidnight(_ day: Day) throws {
        let days = try day.days
        let start = try day.startDate
        let interval = try #require(days.interval(ofDay: day.day))
        #expect(interval.lowerBound == start)
        #expect(interval.upperBound.timeIntervalSince(start) == day.hours * 3600)
        #expect(days.day(of: start) == day.day)
        #expect(days.day(of: start.addingTimeInterval(-0.001)) != day.day)
        #expect(days.day(of: interval.upperBound.addingTimeInterval(-0.001)) == day.day)
        #expect(try days.day(of: interval.upperBound) == day.next)
        #expect(days.interval(containing: start.addingTimeInterval(day.hours * 1800)) == interval)

        let range = try TimelineRange.resolve(day: day.day, from: nil, to: nil, days: days)
        #expect((range.start, range.end) == (interval.lowerBound, interval.upperBound))
        let http = try HTTPRoutes.timelineRange(["day": Substring(day.day)], days: days)
        #expect((http.0, http.1) == (interval.lowerBound, interval.upperBound))
        #expect(http.day == day.day)
        let export = try TrackExport.interval(ofDay: day.day, days: days)
        #expect(export == interval.lowerBound...interval.upperBound.addingTimeInterval(-0.001))
        let dates = try TimelineRange.resolve(day: nil, from: day.day, to: day.next, days: days)
        #expect(dates.start == interval.lowerBound && dates.spansDays)
    }

    /// Times carry the zone's offset at that time, `Z` in UTC; `HH:MM` is the local clock.
    @Test func timesCarryTheirOffset() throws {
        let time = try #require(UTCCalendar.parseISO8601("2026-11-23T12:00:00.250Z"))
        let cases = [
            ("UTC", "2026-11-23T12:00:00.250Z", "12:00"),
            ("Asia/Kolkata", "2026-11-23T17:30:00.250+05:30", "17:30"),
            ("Pacific/Chatham", "2026-11-24T01:45:00.250+13:45", "01:45"),
            ("America/St_Johns", "2026-11-23T08:30:00.250-03:30", "08:30"),
            ("Europe/Zurich", "2026-11-23T13:00:00.250+01:00", "13:00"),
        ]
        for (zone, iso, clock) in cases {
            let days = try #require(LocalDays(named: zone))
            #expect(days.iso8601(time) == iso)
            #expect(UTCCalendar.parseISO8601(iso) == time)
            #expect(days.clock(time) == clock)
        }
    }

    /// The system's zone: TZ (with or without `:`, empty is UTC), else /etc/localtime's
    /// link; a TZ that names no zone is one clear error, and so is a bad setting.
    @Test func theSystemZoneComesFromTZThenLocaltime() throws {
        #expect(try LocalDays.system(environment: ["TZ": "Asia/Kolkata"]).name == "Asia/Kolkata")
        #expect(try LocalDays.system(environment: ["TZ": ":Pacific/Chatham"]).name == "Pacific/Chatham")
        #expect(try LocalDays.system(environment: ["TZ": ""]) == .utc)
        let directory = try TemporaryDirectory()
        let link = directory.path + "/localtime"
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: "/usr/share/zoneinfo/America/St_Johns")
        #expect(try LocalDays.system(environment: [:], localtime: link).name == "America/St_Johns")
        #expect(try LocalDays.system(environment: [:], localtime: directory.path + "/none") == .utc)
        #expect {
            try LocalDays.system(environment: ["TZ": "Mars/Olympus_Mons"])
        } throws: { error in
            (error as? LocationError)?.message.hasPrefix("TZ=Mars/Olympus_Mons is not a time zone name") == true
        }
        for bad in ["Mars/Olympus_Mons", "CET", "+01:00", "../etc/passwd"] {
            #expect(LocalDays(named: bad) == nil, "\(bad)")
        }
    }

    /// `timezone` as a flag over the environment over the file; the system's without any.
    @Test func theTimezoneSettingLayersAsTheOthers() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/locationd.conf"
        try "timezone = Europe/Zurich\n".write(toFile: file, atomically: true, encoding: .utf8)
        var source = DaemonConfigurationSource()
        source.explicitFile = file
        source.environment = ["TZ": "UTC"]
        #expect(try source.resolve().days.name == "Europe/Zurich")
        source.environment["LOCATIOND_TIMEZONE"] = "Asia/Kolkata"
        #expect(try source.resolve().days.name == "Asia/Kolkata")
        source.flags = [("timezone", "Pacific/Chatham")]
        #expect(try source.resolve().days.name == "Pacific/Chatham")
        source.flags = [("timezone", "Europe/Zurch")]
        #expect {
            try source.resolve()
        } throws: { error in
            (error as? LocationError)?.message
                == "--timezone: timezone must be a time zone name such as Europe/Zurich or UTC, not 'Europe/Zurch'"
        }
        try "".write(toFile: file, atomically: true, encoding: .utf8)
        source = DaemonConfigurationSource()
        source.explicitFile = file
        source.environment = ["TZ": "America/St_Johns"]
        #expect(try source.resolve().days.name == "America/St_Johns")
    }

    /// A stay from 23:30 to 00:45 local time is in both days' views and in neither
    /// neighbour's; the table shows it in local time, dated.
    @Test(arguments: days)
    func aStayOverLocalMidnightIsInBothDays(_ day: Day) throws {
        let days = try day.days
        let next = try day.next
        let midnight = try day.midnight
        let stay = Stay(
            start: midnight.addingTimeInterval(-1800), end: midnight.addingTimeInterval(2700), latitude: 47.37,
            longitude: 8.54, radius: 10, fixes: 76)
        let directory = try TemporaryDirectory()
        let store = try TimelineStore(directory: URL(fileURLWithPath: directory.path), logger: Logger(label: "test"))
        try store.record([.stayClosed(stay)], tracker: nil)
        func entries(_ text: String) throws -> [TimelineEntry] {
            let range = try TimelineRange.resolve(day: text, from: nil, to: nil, days: days)
            return try store.entries(from: range.start, to: range.end, pending: [])
        }
        #expect(try entries(day.day) == [.stay(stay)])
        #expect(try entries(next) == [.stay(stay)])
        let before = days.day(of: try day.startDate.addingTimeInterval(-3600))
        #expect(try entries(before).isEmpty)
        let after = days.day(of: midnight.addingTimeInterval(30 * 3600))
        #expect(try entries(after).isEmpty)

        let table = TimelineFormat.table([.stay(stay)], title: "of \(next)", spansDays: false, days: days)
        #expect(table.hasPrefix("Timeline of \(next) (\(day.zone))\n"), "\(table)")
        #expect(table.contains("\(day.day) 23:30–\(next) 00:45  stay"), "\(table)")
    }

    /// The autumn day shows 02:30 twice: each time then carries its offset.
    @Test func theTableNamesTheOffsetWhenItChanges() throws {
        let days = try #require(LocalDays(named: "Europe/Zurich"))
        let first = try #require(UTCCalendar.parseISO8601("2026-10-25T00:30:00Z"))
        let stay = Stay(
            start: first, end: first.addingTimeInterval(3600), latitude: 47.37, longitude: 8.54, radius: 10,
            fixes: 61)
        let table = TimelineFormat.table([.stay(stay)], title: "of 2026-10-25", spansDays: false, days: days)
        #expect(table.contains("\n02:30 +02:00–02:30 +01:00  stay"), "\(table)")
    }

    /// MQTT's distance of the day: the trips of the local day, which ends at local
    /// midnight; the first fix after it starts the next day's at that day's trips.
    @Test(arguments: days)
    func theDayDistanceEndsAtLocalMidnight(_ day: Day) throws {
        let days = try day.days
        let midnight = try day.midnight
        func trip(_ start: TimeInterval, _ metres: Double) -> Trip {
            Trip(
                start: midnight.addingTimeInterval(start), end: midnight.addingTimeInterval(start + 600), from: nil,
                to: nil, distance: metres, maxSpeed: 20, fixes: 600)
        }
        let (late, early) = (trip(-3600, 5000), trip(600, 1200))
        let directory = try TemporaryDirectory()
        let store = try TimelineStore(directory: URL(fileURLWithPath: directory.path), logger: Logger(label: "test"))
        try store.record([.tripClosed(late), .tripClosed(early)], tracker: nil)
        let recorder = TimelineRecorder(
            configuration: MotionConfiguration(), store: store, logger: Logger(label: "test"))
        let timeline = MQTTService.Timeline(recorder: recorder, days: days)

        let evening = try #require(timeline.distance(midnight.addingTimeInterval(-60)))
        #expect(evening == DayDistance(day: day.day, metres: 5000, end: midnight))
        let night = try #require(timeline.distance(midnight))
        #expect(try night.day == day.next)
        #expect(night.metres == 1200)
        #expect(
            night.end > midnight.addingTimeInterval(22 * 3600) && night.end < midnight.addingTimeInterval(26 * 3600))
        #expect(try #require(timeline.distance(try day.startDate)).end == midnight)
    }
}
