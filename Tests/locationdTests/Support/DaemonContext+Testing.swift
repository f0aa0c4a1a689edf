import Dispatch
import Foundation
import LocationProviders
import LocationState
import LocationStores
import Logging

@testable import locationd

extension DaemonContext {
    /// A context over a data directory of the test's, with fresh states unless given. Its
    /// epochs are not run: whatever follows them sees nothing unless the test runs them.
    static func testing(
        directory: String,
        deviceLocation: MonitoredState<Location?> = MonitoredState(key: "deviceLocation", initialValue: nil),
        status: MonitoredState<ProviderStatus> = MonitoredState(
            key: "providerStatus", initialValue: .connecting(.gpsd)),
        logger: Logger = Logger(label: "test")
    ) throws -> DaemonContext {
        let listeners = DispatchQueue(label: "test.listeners")
        return DaemonContext(
            configuration: DaemonConfiguration(dataDirectory: directory), logger: logger,
            coordinator: LocationCoordinator(deviceLocation: deviceLocation, status: status, logger: logger),
            epochs: Epochs(),
            tiles: TileLogger(
                configuration: TileLogger.Configuration(zooms: [14, 17]),
                sink: TileDatabaseSink(
                    url: URL(fileURLWithPath: directory).appendingPathComponent(TileDatabase.fileName)),
                logger: logger),
            lastFix: try LastFixStore(directory: directory, logger: logger), listeners: listeners)
    }
}
