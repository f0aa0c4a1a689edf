import Dispatch
import LocationProviders
import LocationState
import LocationStores
import Logging

@testable import locationd

extension DaemonContext {
    /// A context over a data directory of the test's, with fresh states unless given.
    static func testing(
        directory: String,
        deviceLocation: MonitoredState<Location?> = MonitoredState(key: "deviceLocation", initialValue: nil),
        status: MonitoredState<ProviderStatus> = MonitoredState(
            key: "providerStatus", initialValue: .connecting(.gpsd)),
        logger: Logger = Logger(label: "test")
    ) throws -> DaemonContext {
        DaemonContext(
            configuration: DaemonConfiguration(dataDirectory: directory), logger: logger,
            deviceLocation: deviceLocation, epochLocation: deviceLocation, status: status,
            lastFix: try LastFixStore(directory: directory, logger: logger),
            listeners: DispatchQueue(label: "test.listeners"))
    }
}
