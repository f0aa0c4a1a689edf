import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// A secret file the daemon's user cannot read, as `0600 root` is for the packaged
/// service's user: one line that says so and what works, exit 66. The daemon runs as
/// another user (nobody), from a copy of the binary that user can reach; only as root.
@Suite(.timeLimit(.minutes(5)))
struct SecretFileOwnerTests {
    @Test(.enabled(if: getuid() == 0, "runs the daemon as another user (setpriv), which needs root"))
    func aPasswordTheDaemonsUserCannotReadSaysWhatWorks() async throws {
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.path, 0o755) == 0)
        let binary = try await locationdCopy(in: directory.path)
        let password = directory.path + "/mqtt.password"
        try "s3cret\n".write(toFile: password, atomically: false, encoding: .utf8)
        #expect(chmod(password, 0o600) == 0)
        let config = directory.path + "/locationd.conf"
        try "mqtt = mqtt://127.0.0.1:9\nmqtt-password-file = \(password)\n".write(
            toFile: config, atomically: false, encoding: .utf8)
        #expect(chmod(config, 0o644) == 0)
        let data = directory.path + "/data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        #expect(chown(data, 65534, 65534) == 0)

        let run = try await runProgram(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", binary, "run", "--data-dir", data, "--config",
                config, "--source", "simulated", "--http", "off",
            ])
        let user = String(cString: try #require(getpwuid(65534)).pointee.pw_name)
        #expect(run.status == 66, "\(run.stderr)")
        #expect(
            run.stderr.hasSuffix(
                "\(password): cannot read it: permission denied to user \(user); make it that user's own (chown \(user) \(password); chmod 600 \(password)) or, under systemd, hand it over as a credential (LoadCredential=, see docs/configuration.md).\n"
            ), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }
}
