import LocationTestSupport
import Testing

@testable import LocationState

@Test(.timeLimit(.minutes(10))) func positionNeedsModeAndCoordinates() {
    #expect(Location(mode: .threeD, lat: 1, lon: 2, source: .replay).hasPosition)
    #expect(!Location(mode: .noFix, lat: 1, lon: 2, source: .replay).hasPosition)
    #expect(!Location(mode: .twoD, lat: 1, source: .replay).hasPosition)
}
