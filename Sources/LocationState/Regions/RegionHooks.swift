import Dispatch
import Foundation
import LocationState
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the `on-enter` / `on-leave` commands for region events: without a shell, the
/// event in environment variables, each with a time limit.
///
/// A command is an argument vector (the first element an absolute path, or a name
/// looked up in `PATH`); it is spawned with `posix_spawn` in a process group of its
/// own, stdin from `/dev/null`, stdout and stderr those of the daemon and no other of its
/// descriptors (its listening sockets and database files among them), and these
/// variables added to the daemon's environment: `LOCATIOND_EVENT` (`enter`/`leave`),
/// `LOCATIOND_REGION_ID`, `LOCATIOND_REGION_NAME`, `LOCATIOND_TIME` (ISO 8601),
/// `LOCATIOND_LAT`, `LOCATIOND_LON`, `LOCATIOND_EPH` (when known) and
/// `LOCATIOND_SIMULATED` (`1` or `0`).
///
/// ``run(_:)`` returns at once: a thread of the runner's own waits for the command.
/// One that outlives ``timeout`` is killed (its whole process group, SIGKILL); one
/// that fails or is killed gives one log line. At most ``maximumRunning`` commands
/// run at once; an event beyond that is logged and its command skipped, so a hook
/// that always hangs never piles up processes.
public final class RegionHooks: Sendable {
    /// What became of one command.
    public enum Outcome: Sendable, Hashable {
        /// It exited with this status (0 is success).
        case exited(Int32)
        /// It was ended by this signal (not by the runner).
        case signalled(Int32)
        /// It ran past the timeout and was killed.
        case timedOut
        /// It could not be started (errno's text).
        case notStarted(String)
        /// Too many commands were running; it was not started.
        case skipped
    }

    public let onEnter: [String]?
    public let onLeave: [String]?
    public let timeout: Duration
    /// Commands running at once, at most.
    public let maximumRunning: Int
    private let logger: Logger
    private let finished: (@Sendable (RegionEvent, Outcome) -> Void)?
    private let running = Locked(0)

    /// - Parameters:
    ///   - onEnter: the command (program and arguments) run on entering a region, if any.
    ///   - onLeave: the command run on leaving one, if any.
    ///   - timeout: how long a command may run before its process group is killed.
    ///   - maximumRunning: how many commands may run at once; an event beyond is logged
    ///     and its command skipped.
    ///   - logger: where each command's failure is told.
    ///   - finished: called on the runner's thread with each command's outcome (for tests).
    public init(
        onEnter: [String]?, onLeave: [String]?, timeout: Duration = .seconds(10), maximumRunning: Int = 8,
        logger: Logger, finished: (@Sendable (RegionEvent, Outcome) -> Void)? = nil
    ) {
        self.onEnter = onEnter.flatMap { $0.isEmpty ? nil : $0 }
        self.onLeave = onLeave.flatMap { $0.isEmpty ? nil : $0 }
        self.timeout = timeout
        self.maximumRunning = maximumRunning
        self.logger = logger
        self.finished = finished
    }

    /// Starts the command for `event`, if one is configured; never blocks.
    public func run(_ event: RegionEvent) {
        guard let command = event.kind == .enter ? onEnter : onLeave else { return }
        let started = running.withLock { count -> Bool in
            guard count < maximumRunning else { return false }
            count += 1
            return true
        }
        guard started else {
            logger.warning(
                "on-\(event.kind.rawValue) hook \(command[0]) for region '\(event.region)' skipped: \(maximumRunning) hooks are still running"
            )
            finished?(event, .skipped)
            return
        }
        let thread = Thread { [self] in
            let outcome = execute(command, for: event)
            running.withLock { $0 -= 1 }
            report(outcome, command: command, event: event)
            finished?(event, outcome)
        }
        thread.name = "locationd.regions.hook"
        thread.start()
    }

    /// The environment variables that describe `event`.
    public static func environment(for event: RegionEvent) -> [String: String] {
        var variables = [
            "LOCATIOND_EVENT": event.kind.rawValue,
            "LOCATIOND_REGION_ID": event.region.rawValue,
            "LOCATIOND_REGION_NAME": event.name,
            "LOCATIOND_TIME": UTCCalendar.iso8601(event.time),
            "LOCATIOND_LAT": String(format: "%.9f", event.lat),
            "LOCATIOND_LON": String(format: "%.9f", event.lon),
            "LOCATIOND_SIMULATED": event.simulated ? "1" : "0",
        ]
        if let eph = event.eph { variables["LOCATIOND_EPH"] = String(format: "%.3f", eph) }
        return variables
    }

    /// Splits a configured command into arguments at white space; double or single
    /// quotes keep white space in an argument. No other shell syntax means anything.
    public static func arguments(_ command: String) -> [String] {
        var arguments: [String] = []
        var current = ""
        var quote: Character?
        var inArgument = false
        for character in command {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inArgument = true
            } else if character.isWhitespace {
                if inArgument { arguments.append(current) }
                current = ""
                inArgument = false
            } else {
                current.append(character)
                inArgument = true
            }
        }
        if inArgument { arguments.append(current) }
        return arguments
    }

    /// Spawns, waits with the time limit, reaps. Runs on the hook's own thread.
    private func execute(_ command: [String], for event: RegionEvent) -> Outcome {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(Self.environment(for: event)) { $1 }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        // A hook that leaves a process behind (`cmd &`) would otherwise keep the daemon's
        // HTTP and control sockets listening after it stopped, and a daemon started again
        // could not bind them.
        _ = Self.addCloseFrom?(&actions, 3)
        let argv = command.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, command[0], &actions, &attributes, argv, envp)
        guard status == 0 else { return .notStarted(SystemCall.message(status)) }

        // The child is reaped only below, after the timer can no longer fire, so the
        // pid (and its group) cannot be reused while the timer may still kill it.
        let state = Locked((done: false, killed: false))
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        timer.schedule(deadline: .now() + timeout.dispatchInterval)
        timer.setEventHandler {
            state.withLock { state in
                guard !state.done else { return }
                state.killed = true
                kill(-pid, SIGKILL)
            }
        }
        timer.resume()
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        state.withLock { $0.done = true }
        timer.cancel()
        let killed = state.withLock { $0.killed }
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0, errno == EINTR {}
        if killed { return .timedOut }
        if exitStatus & 0x7F == 0 { return .exited((exitStatus >> 8) & 0xFF) }
        return .signalled(exitStatus & 0x7F)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), looked up once:
    /// the Glibc module does not declare it (a GNU extension); nil where the C library has none.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            #if canImport(Glibc)
                // RTLD_DEFAULT, the global scope, where the C library is.
                guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
                return unsafeBitCast(
                    symbol,
                    to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
            #else
                return nil
            #endif
        }()

    private func report(_ outcome: Outcome, command: [String], event: RegionEvent) {
        let hook = "on-\(event.kind.rawValue) hook \(command[0]) for region '\(event.region)'"
        switch outcome {
        case .exited(0): break
        case .exited(let status): logger.warning("\(hook) failed with exit status \(status)")
        case .signalled(let signal): logger.warning("\(hook) was ended by signal \(signal)")
        case .timedOut: logger.warning("\(hook) did not finish within \(timeout); killed it")
        case .notStarted(let reason): logger.error("\(hook) could not be started: \(reason)")
        case .skipped: break
        }
    }
}
