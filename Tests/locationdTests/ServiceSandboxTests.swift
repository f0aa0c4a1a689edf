import Foundation
import LocationTestSupport
import Testing

@testable import locationd

/// The packaged unit's sandbox (`dist/locationd.service`) against a whole daemon session
/// recorded by `strace -f`: a real gpsd fed by gpsfake, HTTP requests, MQTT to a real
/// Mosquitto, a region entered and its hook run, the control socket, SIGHUP and SIGTERM.
/// Every system call, written path, address family and namespace the daemon used must
/// be one the unit allows, so that the restrictions cannot break it where systemd runs it.
@Suite(.timeLimit(.minutes(5)))
struct ServiceSandboxTests {
    @Test func aWholeDaemonSessionStaysInsideTheUnitsSandbox() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/strace"), "strace is missing: scripts/bootstrap")
        let unit = try ServiceUnit.packaged()
        let allowedCalls = try await unit.allowedSystemCalls()
        try #require(allowedCalls.count > 300, "the unit's SystemCallFilter expanded to \(allowedCalls.count) calls")

        let directory = try TemporaryDirectory()
        // Stand-ins for StateDirectory= and RuntimeDirectory=, made with systemd's modes.
        let state = directory.path + "/state"
        let runtime = directory.path + "/run"
        try FileManager.default.createDirectory(
            atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o750])
        let socket = runtime + "/control.sock"
        let traces = directory.path + "/trace"
        try FileManager.default.createDirectory(atPath: traces, withIntermediateDirectories: false)
        // The unit runs the daemon as an unprivileged user without capabilities; so does the
        // test when it runs as root (SQLite, for one, calls fchown only as root).
        let binary = try await locationdCopy(in: directory.path)
        var asUnitUser: [String] = []
        if getuid() == 0 {
            for path in [state, runtime, traces] { try #require(chown(path, 65534, 65534) == 0) }
            asUnitUser = [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--no-new-privs",
                "--inh-caps=-all", "--bounding-set=-all",
            ]
        }

        let track = TestTrack(epochs: 40)
        let gpsfake = try GPSFake(log: try track.write())
        defer { gpsfake.stop() }
        let broker = try await Mosquitto()
        let subscriber = try await MosquittoSubscriber(port: broker.port, topic: "owntracks/#")
        let regions = directory.path + "/regions.geojson"
        try RegionDaemonTests.collection(RegionDaemonTests.bavaria).write(
            toFile: regions, atomically: true, encoding: .utf8)
        let config = directory.path + "/locationd.conf"
        try """
        source = gpsd
        gpsd = 127.0.0.1:\(gpsfake.port)
        regions = \(regions)
        region-initial-enter = true
        on-enter = /bin/true
        record = true
        mqtt = mqtt://127.0.0.1:\(broker.port)
        mqtt-topic = owntracks/sandbox/test
        """.write(toFile: config, atomically: true, encoding: .utf8)

        let trace = traces + "/strace.txt"
        let daemon = try await DaemonProcess(
            dataDirectory: state, arguments: ["--config", config, "--socket-mode", "0660"], socketPath: socket,
            launcher: asUnitUser + ["/usr/bin/strace", "-f", "-qq", "-y", "-o", trace, "--"], executable: binary)

        try await waitUntil(seconds: 60) {
            ((try? ControlClient.ask("?LAST;", socketPath: socket)) ?? nil)?.contains(#""source":"gpsd""#) == true
        }
        var info = stat()
        #expect(lstat(socket, &info) == 0 && info.st_mode & 0o777 == 0o660)
        _ = try await subscriber.messages.next(within: .seconds(30), "an OwnTracks message")
        try await waitUntil(seconds: 30) {
            ((try? ControlClient.ask("?REGIONS;", socketPath: socket)) ?? nil)?.contains(#""inside":["bavaria"]"#)
                == true
        }
        // The socket is the group's, so HTTP asks for the token `locationd page` gives.
        let http = HTTPTestClient(port: try await daemon.httpPort())
        let page = try await runLocationd(["page", "--socket", socket])
        let token = try #require(page.stdout.split(separator: "=").last?.trimmingCharacters(in: .newlines))
        for path in ["/api/v1/last", "/api/v1/status", "/api/v1/tiles", "/"] {
            #expect(try await http.get(path).status == 401, "GET \(path) without the token")
            #expect(try await http.get(path + "?access_token=\(token)").status == 200, "GET \(path)")
        }
        let last = try await runLocationd(["last", "--socket", socket, "--json"])
        #expect(last.status == 0, "locationd last: \(last.stderr)")

        let pid = daemon.daemonPID
        kill(pid, SIGHUP)
        try await waitUntil(seconds: 20) { daemon.stderr.contains("reloaded 1 regions from \(regions)") }
        #expect(try await daemon.stop(within: 20).status == 0)

        let recorded = SystemCallTrace(text: try String(contentsOfFile: trace, encoding: .utf8))
        let denied = recorded.calls.filter { !allowedCalls.contains($0.key) }
        #expect(denied.isEmpty, "system calls the unit's SystemCallFilter denies: \(denied.values.sorted())")
        #expect(recorded.calls.count > 40, "strace recorded only \(recorded.calls.keys.sorted())")
        // The session did reach gpsd, the broker and its clients, and ran the region's hook.
        #expect(recorded.addressFamilies.isSuperset(of: ["AF_UNIX", "AF_INET"]), "\(recorded.addressFamilies)")
        #expect(recorded.executed.contains("/bin/true"), "the hook's execve: \(recorded.executed)")

        let families = recorded.addressFamilies.subtracting(unit.allowedAddressFamilies)
        #expect(families.isEmpty, "address families RestrictAddressFamilies= refuses: \(families.sorted())")
        #expect(
            recorded.namespaceLines.isEmpty, "namespaces, which RestrictNamespaces= refuses: \(recorded.namespaceLines)"
        )
        #expect(
            recorded.writableExecutableLines.isEmpty,
            "writable and executable memory, which MemoryDenyWriteExecute= refuses: \(recorded.writableExecutableLines)"
        )

        // ProtectSystem=strict leaves the state and runtime directories writable (and
        // PrivateTmp= a private /tmp, which the daemon does not use); /dev/null and the
        // process's own /proc entries stay writable.
        let writable = [state + "/", runtime + "/", "/dev/null", "/proc/self/", "/proc/thread-self/", "/proc/\(pid)/"]
        #expect(recorded.writtenPaths.contains(socket) && recorded.writtenPaths.contains(state + "/tiles.sqlite"))
        let outside = recorded.writtenPaths.filter { path in
            !writable.contains { path.hasPrefix($0) || path + "/" == $0 }
        }
        #expect(outside.isEmpty, "paths written outside StateDirectory= and RuntimeDirectory=: \(outside.sorted())")
    }
}
