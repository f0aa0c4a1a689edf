import ArgumentParser
import LocationState

/// Every exit status of locationd: sysexits(3) codes for errors, `last`'s answers for
/// scripts, 128 + N for a signal; and the one place where errors become exit statuses.
enum ExitStatus {
    /// `locationd last`: a current fix.
    static let currentFix: Int32 = 0
    /// `locationd last`: the fix shown is stale, restored, or older than `--max-age`.
    static let staleOrRestoredFix: Int32 = 3
    /// `locationd last`: no fix known.
    static let noFix: Int32 = 4

    static let usage: Int32 = 64  // EX_USAGE
    static let dataError: Int32 = 65  // EX_DATAERR
    static let noInput: Int32 = 66  // EX_NOINPUT
    static let unavailable: Int32 = 69  // EX_UNAVAILABLE
    static let software: Int32 = 70  // EX_SOFTWARE
    static let cannotCreate: Int32 = 73  // EX_CANTCREAT
    static let ioError: Int32 = 74  // EX_IOERR

    /// The status of a command ended by signal `number`, as a shell reports it.
    static func interrupted(by number: Int32) -> Int32 { 128 + number }

    /// The exit status for an error that ends a command.
    static func code(for error: LocationError) -> Int32 {
        switch error.kind {
        case .usage: usage
        case .noInput: noInput
        case .dataError: dataError
        case .unavailable: unavailable
        case .cannotWrite: cannotCreate
        case .internalError: software
        }
    }
}

extension LocationError {
    /// Prints the error as one line on stderr and ends the command with its sysexits status.
    func exit() -> ExitCode {
        StandardError.line("locationd: \(message)")
        return ExitCode(ExitStatus.code(for: self))
    }
}
