import Foundation
import LocationTestSupport
import Testing

@testable import LocationRegions
@testable import LocationState

/// GeoNames' places in the file `scripts/geonames-extract` writes, and what names a stay.
struct PlaceNamesTests {
    static let path = Repository.root.appendingPathComponent("dist/places.bin").path

    /// Places as the file holds them: the nearest by reverse_geocoder's measure.
    @Test func namesTheNearestPlace() throws {
        let places = try PlaceNames(path: Self.path)
        #expect(places.placeCount > 100_000)
        #expect(places.nearest(lat: 47.4111, lon: 8.5442) == "Zuerich (Kreis 11) / Oerlikon, Zurich, CH")
        #expect(places.nearest(lat: 48.8566, lon: 2.3522) == "Paris, Ile-de-France, FR")
        #expect(places.nearest(lat: -33.8688, lon: 151.2093)?.hasSuffix(", AU") == true)
        #expect(places.nearest(lat: .nan, lon: 0) == nil)
        #expect(places.nearest(lat: 91, lon: 0) == nil)
    }
}
