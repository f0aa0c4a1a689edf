import Foundation
import LocationProviders
import LocationState
import Logging

extension DaemonConfiguration {
    /// The source named in ``ProviderStatus`` before anything arrives.
    var initialSource: FixSource {
        switch source {
        case .auto, .gpsd: .gpsd
        case .simulated: .simulated
        case .replay: .replay
        }
    }

    /// Where `--record` writes its track files.
    var tracksDirectory: URL { URL(fileURLWithPath: dataDirectory).appendingPathComponent(DataDirectory.Name.tracks) }

    /// gpsd at the configured address; checks for cancellation five times a second so that shutdown is prompt.
    private func gpsdProvider(logger: Logger) -> GPSDProvider {
        GPSDProvider(host: gpsdHost, port: gpsdPort, pollInterval: .milliseconds(200), logger: logger)
    }

    /// The provider for the configured source.
    func makeProvider(logger: Logger) -> any LocationProvider {
        switch source {
        case .auto:
            AutomaticProvider(gpsd: gpsdProvider(logger: logger), logger: logger)
        case .gpsd:
            gpsdProvider(logger: logger)
        case .simulated:
            SimulatedProvider()
        case .replay(let path):
            ReplayProvider(path: path, options: .init(speed: 1, loop: true))
        }
    }
}
