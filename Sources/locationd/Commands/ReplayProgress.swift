import Foundation
import LocationState

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A progress bar on stderr for long replays, redrawn at most ten times a second.
final class ReplayProgress: Sendable {
    /// Files smaller than this get no bar, bytes.
    static let minimumSize: Int64 = 8 << 20

    private let lastDraw = Locked<ContinuousClock.Instant?>(nil)

    /// A bar when stderr is a terminal, nil otherwise (pipes, logs, tests).
    static func forTerminal() -> ReplayProgress? {
        isatty(2) == 1 ? ReplayProgress() : nil
    }

    /// Shows `done` of `total` bytes; does nothing for small or unsized files.
    func update(_ done: Int64, _ total: Int64) {
        guard total >= ReplayProgress.minimumSize else { return }
        let now = ContinuousClock.now
        let due = lastDraw.withLock { last in
            if let last, now - last < .milliseconds(100), done < total { return false }
            last = now
            return true
        }
        guard due else { return }
        let fraction = min(1, Double(done) / Double(total))
        let width = 40
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        StandardError.write("\r[\(bar)] \(Int(fraction * 100))% of \(total >> 20) MiB")
    }

    /// Erases the bar.
    func clear() {
        let drawn = lastDraw.withLock { $0 != nil }
        if drawn { StandardError.write("\r\u{1B}[K") }
    }
}
