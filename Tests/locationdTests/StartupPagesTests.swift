import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// The daemon gives its executable's start-up pages back to the kernel (see
/// `StartupPages`): here the test binary's own, which is what `/proc/self/exe` names.
@Suite(.timeLimit(.minutes(10))) struct StartupPagesTests {
    /// Resident kilobytes of the mappings of `/proc/self/exe`, from `/proc/self/smaps`.
    private static func executableResidentKilobytes() throws -> Int {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        return try kilobytes { $0.hasSuffix(" " + executable) }
    }

    /// Mapped kilobytes of the private mappings of shared libraries (`.so` files).
    private static func librariesMappedKilobytes() throws -> Int {
        try kilobytes("Size:") { header in
            let fields = header.split(separator: " ", omittingEmptySubsequences: true)
            return fields.count >= 6 && fields[1].hasSuffix("p") && fields[5].contains(".so")
        }
    }

    /// The kilobytes on the `field` lines (`Rss:`, `Size:`) of the mappings whose header
    /// line `counts`, from `/proc/self/smaps`.
    private static func kilobytes(_ field: String = "Rss:", of counts: (Substring) -> Bool) throws -> Int {
        let smaps = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps")).readDataToEndOfFile()
        var counted = false
        var total = 0
        for line in String(decoding: smaps, as: UTF8.self).split(separator: "\n") {
            if line.first?.isHexDigit == true && line.contains("-") && !line.hasPrefix("Rss") {
                counted = counts(line)
            } else if counted, line.hasPrefix(field) {
                total += Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0
            }
        }
        return total
    }

    /// One test, as a release here empties what another test would measure. The
    /// libraries' mappings are advised too (with MQTT on, libstdc++ alone was 1.4 MiB
    /// that only the start-up used); what the kernel then drops of them depends on
    /// what other processes and this suite's other tests map and touch meanwhile (the
    /// daemon benchmark measures it), so here the check is that they are advised.
    @Test func theExecutablesCleanPagesLeaveTheProcessAndTheLibrariesAreAdvised() throws {
        let before = try Self.executableResidentKilobytes()
        #expect(before > 1024, "the test binary should have over 1 MiB resident, not \(before) KiB")
        let libraries = try Self.librariesMappedKilobytes()
        #expect(libraries > 4096, "the test binary maps \(libraries) KiB of libraries")
        let advised = StartupPages.release()
        let after = try Self.executableResidentKilobytes()
        #expect(advised > before * 1024, "advised \(advised) bytes of mappings")
        // What runs between the two readings faults back in far less than half.
        #expect(after < before / 2, "resident \(before) KiB before, \(after) KiB after")
        // /proc/self/maps is read in pieces while the suite's other threads map and unmap,
        // so one reading can miss mappings (a CI run counted 51 MB of libraries short):
        // a few attempts, each reading the mappings anew. A release that leaves the
        // libraries out falls short every time.
        var (librariesAdvised, mapped) = (advised - StartupPages.release(executableOnly: true), libraries)
        for _ in 0..<4 where librariesAdvised < mapped * 1024 {
            mapped = try Self.librariesMappedKilobytes()
            librariesAdvised = StartupPages.release() - StartupPages.release(executableOnly: true)
        }
        #expect(
            librariesAdvised >= mapped * 1024, "advised \(librariesAdvised) bytes of libraries, \(mapped) KiB mapped")
    }
}
