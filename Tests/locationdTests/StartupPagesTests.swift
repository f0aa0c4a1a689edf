import Foundation
import Testing

@testable import locationd

/// The daemon gives its executable's start-up pages back to the kernel (see
/// `StartupPages`): here the test binary's own, which is what `/proc/self/exe` names.
@Suite struct StartupPagesTests {
    /// Resident kilobytes of the mappings of `/proc/self/exe`, from `/proc/self/smaps`.
    private static func executableResidentKilobytes() throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return try residentKilobytes { $0.hasSuffix(" " + executable) }
    }

    /// Resident kilobytes of the private mappings of shared libraries (`.so` files).
    private static func librariesResidentKilobytes() throws -> Int {
        try residentKilobytes { header in
            let fields = header.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count >= 6 && fields[1].hasSuffix("p") && fields[5].contains(".so")
        }
    }

    /// Resident kilobytes of the mappings whose header line `counts`, from `/proc/self/smaps`.
    private static func residentKilobytes(of counts: (Substring) -> Bool) throws -> Int {
        let smaps = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps")).readDataToEndOfFile()
        var counted = false
        var total = 0
        for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
            if line.first?.isHexDigit == true && line.contains("-") && !line.hasPrefix("Rss") {
                counted = counts(line)
            } else if counted, line.hasPrefix("Rss:") {
                total += Int(line.split(separator: " ")[1]) ?? 0
            }
        }
        return total
    }

    /// The libraries' pages go too (with MQTT on, libstdc++ alone was 1.4 MiB that only
    /// the start-up used); pages another process maps as well stay, so less than all.
    @Test func theLibrariesCleanPagesLeaveTheProcess() throws {
        let before = try Self.librariesResidentKilobytes()
        StartupPages.release()
        let after = try Self.librariesResidentKilobytes()
        #expect(before - after > 1024, "libraries resident \(before) KiB before, \(after) KiB after")
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
