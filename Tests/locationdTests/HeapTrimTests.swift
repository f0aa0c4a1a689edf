import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// The daemon trims glibc's heaps once a minute (see `HeapTrim`): freed memory inside a
/// heap, which glibc keeps resident, goes back to the kernel.
@Suite struct HeapTrimTests {
    /// This process's resident anonymous memory (`RssAnon`), KiB.
    private static func residentAnonymousKilobytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    @Test func freedMemoryInsideTheHeapLeavesTheProcess() async throws {
        // 32 MiB in small blocks, all freed but the last, which keeps the heap's top in
        // use: glibc alone gives back nothing of it.
        let (before, after) = try await offThePool { () throws -> (Int, Int) in
            var blocks: [UnsafeMutableRawPointer] = []
            for _ in 0..<65_536 {
                let block = try #require(malloc(512))
                memset(block, 1, 512)
                blocks.append(block)
            }
            for block in blocks.dropLast() { free(block) }
            defer { free(blocks.last) }
            let before = try Self.residentAnonymousKilobytes()
            #expect(HeapTrim.trim())
            return (before, try Self.residentAnonymousKilobytes())
        }
        // Other tests allocate meanwhile; half of the 32 MiB is far beyond what they take.
        #expect(after < before - 16 * 1024, "resident anonymous memory \(before) KiB before, \(after) KiB after")
    }
}
