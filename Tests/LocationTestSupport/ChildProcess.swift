import Foundation

/// A program the tests start: `posix_spawn` with only the standard descriptors, an empty
/// signal mask and default dispositions, in a process group of its own; the tests use it
/// instead of Foundation's `Process`.
///
/// Foundation's `Process.run()` on Linux (swift-corelibs-foundation of Swift 6.3) lists
/// `/proc/self/fd` to close every other descriptor in the child, copying each `dirent`'s
/// whole 256-byte name although `readdir` returns records only as long as the name: a
/// record at the end of glibc's buffer, before an unmapped page, crashes the test process
/// (fixed upstream in swift-corelibs-foundation #5472). A full suite starts a few hundred
/// programs, and a CI run crashed there. glibc's `posix_spawn_file_actions_addclosefrom_np`
/// closes the same descriptors without reading the directory.
///
/// The mask and dispositions: a child started from a Dispatch thread would otherwise
/// inherit its mask, which blocks SIGTERM, and Mosquitto, for one, does not unblock it.
package final class ChildProcess: @unchecked Sendable {
    // @unchecked Sendable: `status` is read and written under `lock`; the rest are `let`s.

    /// Where one of the child's standard streams goes.
    package enum Stream {
        /// `/dev/null`.
        case null
        /// A pipe's end: the child's end is closed in this process once it runs.
        case pipe(Pipe)
        /// An open file.
        case file(FileHandle)
    }

    package let processIdentifier: pid_t
    private let lock = NSLock()
    /// The wait status, once the child is reaped.
    private var status: Int32?

    /// Starts `path` with `arguments`; `environment` replaces the tests' own when given.
    /// Throws when the program cannot be started.
    package init(
        _ path: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        standardInput: Stream = .null, standardOutput: Stream = .null, standardError: Stream = .null
    ) throws {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGCHLD] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let streams = [(STDIN_FILENO, standardInput), (STDOUT_FILENO, standardOutput), (STDERR_FILENO, standardError)]
        for (target, stream) in streams {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(
                    &actions, target, "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0)
            case .pipe(let pipe):
                let end = target == STDIN_FILENO ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, end.fileDescriptor, target)
            case .file(let handle):
                posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            }
        }
        guard let addCloseFrom = Self.addCloseFrom, addCloseFrom(&actions, 3) == 0 else {
            throw ChildProcessError(
                path: path, reason: "glibc 2.34 or later is needed (posix_spawn_file_actions_addclosefrom_np)")
        }

        let words = [path] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for word in argv { free(word) } }
        let environmentWords = environment.map { $0.map { "\($0.key)=\($0.value)" } }
        let envp: [UnsafeMutablePointer<CChar>?]? = environmentWords.map { $0.map { strdup($0) } + [nil] }
        defer { for word in envp ?? [] { free(word) } }

        var pid: pid_t = 0
        let result =
            if let envp {
                posix_spawn(&pid, path, &actions, &attributes, argv, envp)
            } else {
                posix_spawn(&pid, path, &actions, &attributes, argv, environ)
            }
        guard result == 0 else { throw ChildProcessError(path: path, reason: String(cString: strerror(result))) }
        processIdentifier = pid
        for (target, stream) in streams {
            guard case .pipe(let pipe) = stream else { continue }
            try (target == STDIN_FILENO ? pipe.fileHandleForReading : pipe.fileHandleForWriting).close()
        }
    }

    /// Whether the child has not exited; reaps it when it has.
    package var isRunning: Bool {
        lock.withLock {
            guard status == nil else { return false }
            var raw: Int32 = 0
            guard waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier else { return true }
            status = raw
            return false
        }
    }

    /// Blocks until the child has exited, and reaps it.
    package func waitUntilExit() {
        // waitid with WNOWAIT leaves the child to be reaped under the lock, by whichever
        // of this and `isRunning` comes first.
        var information = siginfo_t()
        while lock.withLock({ status == nil }) {
            if waitid(P_PID, id_t(processIdentifier), &information, WEXITED | WNOWAIT) != 0, errno != EINTR {
                return
            }
            _ = isRunning
        }
    }

    /// The exit status, or the number of the signal that ended the child (as Foundation's
    /// `Process` reports it); call after ``waitUntilExit()``.
    package var terminationStatus: Int32 {
        let raw = lock.withLock { status } ?? 0
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : signal
    }

    /// Whether the child exited or a signal ended it; call after ``waitUntilExit()``.
    package var terminationReason: Process.TerminationReason {
        (lock.withLock { status } ?? 0) & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the
    /// Glibc module does not declare (it is a GNU extension); nil without it.
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = dlsym(
            dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np"
        ).map {
            unsafeBitCast(
                $0, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }
}

/// A program that could not be started, and why.
package struct ChildProcessError: Error, CustomStringConvertible {
    let path: String
    let reason: String
    package var description: String { "cannot start \(path): \(reason)" }
}
