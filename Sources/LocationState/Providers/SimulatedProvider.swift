import Foundation
import LocationState

/// Synthetic fixes along a ``SimulatedRoute``, one per `interval`, for machines without a GPS.
///
/// Emits `.connected`, then a fix every `interval` of `clock` time, forever;
/// every fix is marked `source: .simulated` (and gpsd `status` 8), so it is
/// never mistaken for a real position. The route depends only on `seed` and
/// the settings; fix times start at `now()` when `run` starts.
///
/// - Important: `run` returns (without throwing) when its task is cancelled.
public struct SimulatedProvider: LocationProvider {
    /// The random seed of the route.
    public var seed: UInt64
    /// Start latitude, degrees.
    public var lat: Double
    /// Start longitude, degrees.
    public var lon: Double
    /// Start altitude above the ellipsoid, metres.
    public var altitude: Double
    /// Cruising speed, metres per second.
    public var speed: Double
    /// Time between fixes.
    public var interval: Duration
    private let clock: any Clock<Duration>
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - seed: equal seeds give equal routes (default 1).
    ///   - lat: start latitude, degrees (default Munich).
    ///   - lon: start longitude, degrees.
    ///   - altitude: start altitude above the ellipsoid, metres.
    ///   - speed: cruising speed, metres per second (default 13.9, 50 km/h).
    ///   - interval: time between fixes (default 1 s).
    ///   - clock: paces the fixes (tests pass a clock that does not wait).
    ///   - now: the wall-clock time of the first fix.
    public init(
        seed: UInt64 = 1, lat: Double = 48.1173, lon: Double = 11.5167, altitude: Double = 520,
        speed: Double = 13.9, interval: Duration = .seconds(1),
        clock: any Clock<Duration> = ContinuousClock(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.seed = seed
        self.lat = lat
        self.lon = lon
        self.altitude = altitude
        self.speed = speed
        self.interval = interval
        self.clock = clock
        self.now = now
    }

    public func run(_ emit: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        var route = SimulatedRoute(
            seed: seed, lat: lat, lon: lon, altitude: altitude, speed: speed, interval: interval, start: now())
        emit(.connected)
        while !Task.isCancelled {
            emit(.fix(route.next()))
            do {
                try await clock.sleep(for: interval)
            } catch {
                return
            }
        }
    }
}
