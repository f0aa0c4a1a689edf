import Foundation
import LocationTestSupport
import Testing

@testable import LocationState

@Test(.timeLimit(.minutes(10))) func positionNeedsModeAndCoordinates() {
    #expect(Location(mode: .threeD, lat: 1, lon: 2, source: .replay).hasPosition)
    #expect(!Location(mode: .noFix, lat: 1, lon: 2, source: .replay).hasPosition)
    #expect(!Location(mode: .twoD, lat: 1, source: .replay).hasPosition)
}

/// `Location.Measurements` keeps each field in a `Double` and a bit: every field reads back
/// alone, a known 0 is not an unknown field, and a field cleared again leaves a fix equal,
/// hash and all, to one that never had it.
@Test(.timeLimit(.minutes(10))) func measurementsKeepEachFieldApart() {
    typealias Field = Location.Measurements.Field
    for (offset, field) in Field.allCases.enumerated() {
        var fix = Location(mode: .threeD, source: .replay)
        fix.measurements[field] = Double(offset) + 0.5
        for other in Field.allCases {
            let expected = other == field ? Double(offset) + 0.5 : nil
            #expect(fix.measurements[other] == expected, "\(field) set, \(other) read")
        }
        #expect(fix.time == nil)

        var zero = Location(mode: .threeD, source: .replay)
        zero.measurements[field] = 0
        #expect(zero.measurements[field] == 0, "\(field): a known 0")
        #expect(zero != Location(mode: .threeD, source: .replay), "\(field): a known 0 is not unknown")

        fix.measurements[field] = nil
        #expect(fix == Location(mode: .threeD, source: .replay), "\(field) cleared")
        #expect(fix.hashValue == Location(mode: .threeD, source: .replay).hashValue, "\(field) cleared")
    }
}

@Test(.timeLimit(.minutes(10))) func measurementsKeepTheTimeExactly() {
    let time = Date(timeIntervalSinceReferenceDate: 786_543_210.123_456_7)
    var fix = Location(time: time, mode: .twoD, lat: 1, lon: 2, source: .gpsd)
    #expect(fix.time == time)
    #expect(fix.time?.timeIntervalSinceReferenceDate.bitPattern == time.timeIntervalSinceReferenceDate.bitPattern)
    #expect(fix.lat == 1 && fix.lon == 2 && fix.speed == nil)

    var epoch = Location(time: Date(timeIntervalSinceReferenceDate: 0), mode: .twoD, lat: 1, lon: 2, source: .gpsd)
    #expect(epoch.time == Date(timeIntervalSinceReferenceDate: 0), "the reference date itself is a time")
    epoch.time = nil
    fix.time = nil
    #expect(epoch == fix)
    #expect(epoch.hashValue == fix.hashValue)
}
