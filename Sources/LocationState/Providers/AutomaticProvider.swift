import Foundation
import LocationState
import Logging

/// `--source auto`: gpsd when it delivers, the simulator when it cannot.
///
/// Starts with gpsd. When gpsd has been unreachable or without a device
/// (`.disconnected`) for `gracePeriod`, logs one loud warning and switches to the
/// simulator, starting it at the last real position when there was one. While
/// simulating it keeps gpsd's provider reconnecting in the background, and as
/// soon as gpsd delivers a real fix it stops the simulator, logs the switch, and
/// passes gpsd's events on again. A gpsd with a device but no fix is not a
/// reason to simulate: it reports `.noFix`.
///
/// Fixes keep their own source, so a simulated fix is always marked
/// `source: .simulated`; once the switch back happens no simulated event is
/// passed on any more. The simulator's `.connected` is not passed on either:
/// gpsd is still the source that is lost, and the first simulated fix shows the
/// takeover by its source.
///
/// - Important: events are passed on in order from one task, never concurrently.
///   `run` returns when its task is cancelled, after stopping both sources.
public struct AutomaticProvider: LocationProvider {
    private let gpsd: any LocationProvider
    private let simulator: SimulatedProvider
    private let gracePeriod: Duration
    private let clock: any Clock<Duration>
    private let logger: Logger

    /// - Parameters:
    ///   - gpsd: the real source (a ``GPSDProvider``).
    ///   - simulator: the stand-in; its start point is moved to the last real fix.
    ///   - gracePeriod: how long gpsd may be away before the simulator takes over (default 5 s).
    ///   - clock: measures the grace period.
    ///   - logger: where the switches are logged.
    public init(
        gpsd: any LocationProvider, simulator: SimulatedProvider = SimulatedProvider(),
        gracePeriod: Duration = .seconds(5), clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "locationd.source")
    ) {
        self.gpsd = gpsd
        self.simulator = simulator
        self.gracePeriod = gracePeriod
        self.clock = clock
        self.logger = logger
    }

    /// What reaches the switching loop, from the sources and the grace timer.
    private enum Input: Sendable {
        case gpsd(ProviderEvent)
        case simulator(ProviderEvent, run: Int)
        case graceElapsed(timer: Int)
    }

    public func run(_ emit: @escaping @Sendable (ProviderEvent) -> Void) async throws {
        let (inputs, continuation) = AsyncStream.makeStream(of: Input.self)
        let gpsd = self.gpsd
        let gpsdTask = Task { try await gpsd.run { continuation.yield(.gpsd($0)) } }
        var switcher = Switcher(provider: self, inputs: continuation, emit: emit)
        switcher.armGraceTimer()
        defer {
            gpsdTask.cancel()
            switcher.stopTasks()
            continuation.finish()
        }
        for await input in inputs {
            switcher.handle(input)
        }
    }

    /// The switching state; lives in `run`'s task only.
    private struct Switcher {
        let provider: AutomaticProvider
        let inputs: AsyncStream<Input>.Continuation
        let emit: @Sendable (ProviderEvent) -> Void
        private var simulating = false
        private var gpsdUp = false
        private var gpsdReason = "gpsd has not answered yet."
        private var lastRealFix: Location?
        private var timer = 0
        private var timerTask: Task<Void, Never>?
        private var simulatorRun = 0
        private var simulatorTask: Task<Void, Never>?

        init(
            provider: AutomaticProvider, inputs: AsyncStream<Input>.Continuation,
            emit: @escaping @Sendable (ProviderEvent) -> Void
        ) {
            self.provider = provider
            self.inputs = inputs
            self.emit = emit
        }

        mutating func handle(_ input: Input) {
            switch input {
            case .gpsd(let event):
                handleGPSD(event)
            case .simulator(let event, let run):
                // The simulator's `.connected` is not passed on: gpsd is still the one
                // lost, and the first simulated fix says by its source who took over.
                if simulating, run == simulatorRun, event != .connected { emit(event) }
            case .graceElapsed(let timer):
                if timer == self.timer, !gpsdUp, !simulating { startSimulator() }
            }
        }

        private mutating func handleGPSD(_ event: ProviderEvent) {
            switch event {
            case .connected:
                gpsdUp = true
                cancelGraceTimer()
                if !simulating { emit(event) }
            case .disconnected(let reason):
                gpsdUp = false
                gpsdReason = reason
                armGraceTimer()
                if !simulating { emit(event) }
            case .noFix:
                if !simulating { emit(event) }
            case .fix(let location):
                lastRealFix = location
                if simulating { stopSimulator() }
                emit(event)
            }
        }

        private mutating func startSimulator() {
            var simulator = provider.simulator
            if let lat = lastRealFix?.lat, let lon = lastRealFix?.lon {
                simulator.lat = lat
                simulator.lon = lon
            }
            logger.warning(
                """
                NO GPS: \(gpsdReason) The location now comes from the SIMULATOR (positions are synthetic, \
                marked source=simulated) until gpsd delivers real fixes.
                """)
            simulating = true
            simulatorRun += 1
            let run = simulatorRun
            let inputs = inputs
            simulatorTask = Task { try? await simulator.run { inputs.yield(.simulator($0, run: run)) } }
        }

        private mutating func stopSimulator() {
            logger.notice("gpsd delivers real fixes again; the simulator is stopped")
            simulating = false
            simulatorTask?.cancel()
            simulatorTask = nil
        }

        mutating func armGraceTimer() {
            cancelGraceTimer()
            let timer = self.timer
            let (clock, grace, inputs) = (provider.clock, provider.gracePeriod, inputs)
            timerTask = Task {
                guard (try? await clock.sleep(for: grace)) != nil else { return }
                inputs.yield(.graceElapsed(timer: timer))
            }
        }

        private mutating func cancelGraceTimer() {
            timer += 1
            timerTask?.cancel()
            timerTask = nil
        }

        mutating func stopTasks() {
            timerTask?.cancel()
            simulatorTask?.cancel()
        }

        private var logger: Logger { provider.logger }
    }
}
