import Foundation
import LocationState
import LocationTestSupport
import Testing

/// Who may read a secret file besides the daemon's user: a warning only when someone may.
@Suite struct SecretExposureTests {
    @Test(arguments: [
        (0o600, "locationd", [String](), nil),
        (0o400, "root", [], nil),
        // The packaged service's group, with users who may ask for the location.
        (0o640, "locationd", ["alice", "bob"], "the members of group locationd (alice, bob)"),
        // A group of the daemon's user alone.
        (0o640, "locationd", [], nil),
        (0o660, "locationd", [], nil),
        (0o644, "locationd", [], "every user"),
        (0o602, "root", [], "every user"),
    ])
    func exposure(mode: Int, group: String, others: [String], expected: String?) {
        #expect(ConfiguredFile.exposure(mode: mode_t(mode), group: (group, others)) == expected)
    }
}
