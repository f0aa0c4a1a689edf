import Foundation
import Testing

@testable import locationd

/// The daemon gives its executable's start-up pages back to the kernel (see
/// `StartupPages`): here the test binary's own, which is what `/proc/self/exe` names.
@Suite struct StartupPagesTests {
    /// Resident kilobytes of the mappings of `/proc/self/exe`, from `/proc/self/smaps`.
    private static func executableResidentKilobytes() throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let smaps = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps")).readDataToEndOfFile()
        var inExecutable = false
        var total = 0
        for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
            if line.first?.isHexDigit == true && line.contains("-") && !line.hasPrefix("Rss") {
                inExecutable = line.hasSuffix(" " + executable)
            } else if inExecutable, line.hasPrefix("Rss:") {
                total += Int(line.split(separator: " ")[1]) ?? 0
            }
        }
        return total
    }

    @Test func theExecutablesCleanPagesLeaveTheProcess() throws {
        let before = try Self.executableResidentKilobytes()
        #expect(before > 1024, "the test binary should have over 1 MiB resident, not \(before) KiB")
        let advised = StartupPages.release()
        let after = try Self.executableResidentKilobytes()
        #expect(advised > before * 1024, "advised \(advised) bytes of mappings")
        // What runs between the two readings faults back in far less than half.
        #expect(after < before / 2, "resident \(before) KiB before, \(after) KiB after")
    }
}
