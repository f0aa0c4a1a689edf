import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import locationd

/// `locationd run --uplink` against a loopback stand-in of Traccar, fed by a real gpsd
/// (gpsfake): a server away for a minute of fixes while the daemon is killed with
/// SIGKILL gets every fix once it is back.
@Suite(.serialized, .timeLimit(.minutes(10))) struct UplinkDaemonTests {
    private static let walk = URL(fileURLWithPath: Repository.sampleTrack("walk.nmea"))

    private static func uplinks(_ daemon: DaemonProcess) -> [[String: Any]] {
        guard let line = (try? ControlClient.ask("?STATUS;", socketPath: daemon.socketPath)) ?? nil,
            let status = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { return [] }
        return status["uplinks"] as? [[String: Any]] ?? []
    }

    /// Whether the daemon's gpsd session has a device: its WATCH was taken.
    private static func connected(_ daemon: DaemonProcess) -> Bool {
        guard let line = (try? ControlClient.ask("?STATUS;", socketPath: daemon.socketPath)) ?? nil,
            let status = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else { return false }
        return status["connected"] as? Bool == true
    }

    private static func backlog(_ daemon: DaemonProcess) -> Int {
        uplinks(daemon).first?["backlog"] as? Int ?? -1
    }

    /// The fix times of the recorded tracks (every epoch the daemon handed on and wrote).
    private static func recordedTimes(_ dataDirectory: String) throws -> Set<Date> {
        let tracks = dataDirectory + "/tracks"
        var times: Set<Date> = []
        for name in try FileManager.default.contentsOfDirectory(atPath: tracks) where name.hasSuffix(".nmea") {
            let text = try String(contentsOfFile: tracks + "/" + name, encoding: .utf8)
            let day = String(name.prefix(10))
            for line in text.split(whereSeparator: \.isNewline)
            where line.hasPrefix("$GPRMC") || line.hasPrefix("$GNRMC") {
                let time = line.split(separator: ",", omittingEmptySubsequences: false)[1]
                if let date = UTCCalendar.parseISO8601(
                    "\(day)T\(time.prefix(2)):\(time.dropFirst(2).prefix(2)):\(time.dropFirst(4))Z")
                {
                    times.insert(date)
                }
            }
        }
        return times
    }

    @Test func aServerAwayWhileTheDaemonIsKilledGetsEveryFixOnceBack() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let traccar = try await UplinkServer(.traccarOsmAnd(devices: ["van"]))
        let gpsfake = try GPSFake(log: Self.walk, once: true)
        defer { gpsfake.stop() }
        let arguments = [
            "--source", "gpsd", "--gpsd", "127.0.0.1:\(gpsfake.port)", "--record",
            "--uplink", "osmand=\(traccar.url)/?id=van",
        ]
        // Every fix, not one per 5 s: each is checked at the server.
        let environment = ["LOCATIOND_UPLINK_MIN_INTERVAL": "0"]
        let first = try await DaemonProcess(dataDirectory: data, arguments: arguments, environment: environment)
        try await gpsfake.startFeeding(holdingBack: 600 - 40)
        do {
            _ = try await traccar.stored(atLeast: 10)
        } catch {
            Issue.record("\(first.stderr) status: \(Self.uplinks(first)); requests: \(traccar.requests.count)")
            throw error
        }
        // Away for a minute of fixes, across a SIGKILL.
        await traccar.stop()
        // 30 epochs (two lines each); the merger hands each on when the next begins, so 30
        // are handed on (the last of the first feed and 29 of these): all of them in the
        // outbox before the kill.
        try await gpsfake.feed(lines: 60)
        try await waitUntil(seconds: 60) { Self.backlog(first) >= 30 }
        _ = try await first.stop(with: SIGKILL)
        let second = try await DaemonProcess(dataDirectory: data, arguments: arguments, environment: environment)
        // Fed only once the daemon watches (gpsd keeps nothing for a client to come).
        try await waitUntil(seconds: 60) { Self.connected(second) }
        let before = Self.backlog(second)
        #expect(before >= 30, "the backlog survives the kill")
        try await gpsfake.feed(lines: 60)
        try await waitUntil(seconds: 60) { Self.backlog(second) >= before + 29 }
        try await traccar.start()
        try await gpsfake.feed(lines: 40)
        try await waitUntil(seconds: 60) { Self.backlog(second) == 0 && traccar.stored.count >= 90 }
        _ = try await second.stop()
        // The epoch the daemon held is handed on as it stops, to the track and to the outbox
        // (too late to be sent): the next start sends it.
        let third = try await DaemonProcess(dataDirectory: data, arguments: arguments, environment: environment)
        try await waitUntil(seconds: 60) { Self.connected(third) && Self.backlog(third) == 0 }
        _ = try await third.stop()
        let stored = traccar.stored.compactMap(\.time)
        let recorded = try Self.recordedTimes(data)
        // The track recorder buffers its file, so a kill costs it the last lines: the
        // server may have more, never fewer.
        #expect(recorded.count >= 60)
        // Every fix recorded is at the server; a duplicate only where an answer was lost
        // (the request under way when the daemon was killed). What the server lacks the
        // recording lacks too: the epoch the killed daemon held (complete only when the next
        // one began, which it never saw) and, with both cores busy, the odd epoch that reached
        // no listener (seen: two seconds missing from the recording and the server alike).
        #expect(recorded.isSubset(of: Set(stored)), "missing: \(recorded.subtracting(stored).sorted())")
        #expect(stored.count - Set(stored).count <= 1)
        // In order, but for a fix sent ahead of a backlog (newer than every fix before
        // it: the newest first after an outage, again when a backlog under load spans
        // more than 5 s) and the one duplicate.
        var newest = Date.distantPast
        var backwards: [Date] = []
        for (fix, next) in zip(stored, stored.dropFirst()) {
            let sentAhead = fix > newest
            newest = max(newest, fix)
            if fix >= next, !sentAhead, fix != next { backwards.append(fix) }
        }
        #expect(backwards.count <= 1, "out of order: \(backwards) in \(stored)")
        #expect(traccar.current(device: "van")?.time == stored.max())
    }

    /// A target the daemon cannot use is one line and exit 64 at start, its secret never
    /// quoted; an unreachable server is not an error (a retry).
    @Test(arguments: [
        (["--uplink", "traccar=http://host/"], "uplink protocol must be osmand, owntracks, overland, gpslogger"),
        (["--uplink", "osmand=http://me:hunter2@host/"], "use password-file= or password-env="),
        (["--uplink", "osmand=http://host/", "--uplink", "osmand=http://other/"], "a second uplink named osmand"),
        (["--uplink", "osmand=http://host/ token-env=LOCATIOND_TEST_NO_SUCH_VARIABLE"], "is not set or empty"),
    ])
    func badTargetsExit64WithOneLine(arguments: [String], message: String) async throws {
        try await expectRunRefuses(arguments, saying: message)
    }
}
