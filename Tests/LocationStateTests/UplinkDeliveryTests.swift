import Foundation
import LocationTestSupport
import NIOCore
import NIOPosix
import NIOSSL
import Testing

@testable import LocationState
@testable import LocationTimeline
@testable import LocationUplinks

/// The senders against loopback stand-ins of the real servers (`UplinkServer`, each rule
/// from the server's code): every fix once, in order, per target; outages, refusals and
/// misbehaving servers cost time, never fixes.
@Suite(.timeLimit(.minutes(10))) struct UplinkDeliveryTests {
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)

    private static func fix(_ second: Int) -> Location {
        Location(
            time: start.addingTimeInterval(Double(second)), mode: .threeD, lat: 52.5 + Double(second) * 1e-4,
            lon: 13.35, speed: 12, eph: 4, source: .gpsd)
    }

    /// Short waits, so that a retry or a refusal's next try comes within a test.
    private static var quick: Uplinks.Timeouts {
        var timeouts = Uplinks.Timeouts()
        timeouts.read = .seconds(2)
        timeouts.request = .seconds(4)
        timeouts.refusalRetry = .milliseconds(300)
        return timeouts
    }

    private static func target(_ text: String) throws -> UplinkTarget {
        try UplinkTarget.parse(text, origin: "test", visible: false, hostName: "pi")
    }

    /// Runs `uplinks` while `body` runs.
    private static func running(_ uplinks: Uplinks, _ body: () async throws -> Void) async throws {
        let task = Task { await uplinks.run() }
        defer { task.cancel() }
        try await body()
        task.cancel()
        await task.value
    }

    /// One OwnTracks target (user anna, device van) on `recorder`, its outbox in `path`.
    private static func ownTracksUplinks(to recorder: UplinkServer, in path: String) throws -> Uplinks {
        try Uplinks(
            targets: [target("owntracks=\(recorder.url)/pub user=anna device=van")],
            directory: URL(fileURLWithPath: path), timeouts: quick,
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
    }

    private static func status(_ uplinks: Uplinks, _ name: String) -> UplinkStatus? {
        uplinks.statuses.withLock { $0.first { $0.name == name } }
    }

    private static func seconds(_ fixes: [StoredFix]) -> [Int] {
        fixes.compactMap { $0.time.map { Int($0.timeIntervalSince(start)) } }
    }

    /// Two targets; one stops: the other gets everything meanwhile, and the stopped one,
    /// once back, the newest fix first, then the backlog in order (Traccar shows the newest
    /// fix time as current).
    @Test func aTargetThatIsAwayHoldsUpNoOtherAndGetsEverythingBack() async throws {
        try await withTemporaryDirectory { path in
            let traccar = try await UplinkServer(.traccarOsmAnd(devices: ["van"]))
            let dawarich = try await UplinkServer(.dawarichOverland(apiKey: "k3y"))
            let uplinks = try Uplinks(
                targets: [
                    Self.target("osmand=\(traccar.url)/?id=van"),
                    Self.target("overland=\(dawarich.url)/api/v1/overland/batches?api_key=k3y device=pi"),
                ], directory: URL(fileURLWithPath: path), timeouts: Self.quick,
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            try await Self.running(uplinks) {
                for second in 0..<5 { await uplinks.offer(Self.fix(second), motion: .moving) }
                #expect(Self.seconds(try await traccar.stored(atLeast: 5)) == Array(0..<5))
                _ = try await dawarich.stored(atLeast: 5)
                // Delivered as the sender knows it: stopped before its last answer, Traccar
                // would get fix 4 again after the outage.
                try await waitUntil(seconds: 120) { Self.status(uplinks, "osmand")?.backlog == 0 }
                await traccar.stop()
                for second in 5..<20 { await uplinks.offer(Self.fix(second), motion: .moving) }
                // Not held up by the other.
                #expect(Set(Self.seconds(try await dawarich.stored(atLeast: 20))) == Set(0..<20))
                try await waitUntil(seconds: 120) { Self.status(uplinks, "osmand")?.state == .retrying }
                #expect(Self.status(uplinks, "osmand")?.backlog == 15)
                try await traccar.start()
                let stored = try await traccar.stored(atLeast: 20, within: .seconds(120))
                #expect(Self.seconds(stored) == Array(0..<5) + [19] + Array(5..<19))
                #expect(traccar.current(device: "van")?.time == Self.fix(19).time)
                try await waitUntil(seconds: 120) { Self.status(uplinks, "osmand")?.backlog == 0 }
                #expect(Self.status(uplinks, "osmand")?.state == .delivering)
            }
            #expect(Self.seconds(dawarich.stored).count == 20)
        }
    }

    /// Traccar refuses an unknown device with 400: the fixes wait and go once it is known.
    @Test func aRefusalKeepsTheFixesUntilTheServerTakesThem() async throws {
        try await withTemporaryDirectory { path in
            let traccar = try await UplinkServer(.traccarOsmAnd(devices: ["van"]))
            let log = LogRecorder()
            do {
                let uplinks = try Uplinks(
                    targets: [Self.target("osmand=\(traccar.url)/?id=car")], directory: URL(fileURLWithPath: path),
                    timeouts: Self.quick, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: log.logger)
                try await Self.running(uplinks) {
                    for second in 0..<3 { await uplinks.offer(Self.fix(second), motion: nil) }
                    // Refused, the fix is tried again after a backoff: three tries take a while
                    // on a loaded machine (one came just after 30 s in a full run beside builds).
                    _ = try await traccar.requests(atLeast: 3, within: .seconds(120))
                    try await waitUntil(seconds: 120) { Self.status(uplinks, "osmand")?.state == .refused }
                    #expect(Self.status(uplinks, "osmand")?.lastAnswer == "HTTP 400")
                    #expect(Self.status(uplinks, "osmand")?.backlog == 3)
                    #expect(traccar.stored.isEmpty)
                    // One line for the episode, however many tries.
                    #expect(log.events.filter { $0.message.contains("refuses the fixes") }.count == 1)
                }
            }
            // The device id corrected (the same target, so the same cursor): what waited goes.
            let known = try Uplinks(
                targets: [Self.target("osmand=\(traccar.url)/?id=car device=van")],
                directory: URL(fileURLWithPath: path), timeouts: Self.quick,
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            try await Self.running(known) {
                await known.offer(Self.fix(3), motion: nil)
                let stored = try await traccar.stored(atLeast: 4)
                #expect(Self.seconds(stored) == [0, 1, 2, 3])
            }
        }
    }

    /// A 503 with `Retry-After`, a reply cut off, a server slower than the read timeout:
    /// each a retry, and every fix arrives (a duplicate only where an answer was lost).
    @Test func misbehavingServersCostRetriesNotFixes() async throws {
        try await withTemporaryDirectory { path in
            let recorder = try await UplinkServer(.recorder)
            let uplinks = try Self.ownTracksUplinks(to: recorder, in: path)
            try await Self.running(uplinks) {
                recorder.setBehaviour(.answer(status: 503, headers: ["Retry-After": "1"], body: "busy"))
                await uplinks.offer(Self.fix(0), motion: nil)
                try await waitUntil(seconds: 120) { Self.status(uplinks, "owntracks")?.lastAnswer == "HTTP 503: busy" }
                #expect(Self.status(uplinks, "owntracks")?.state == .retrying)
                recorder.setBehaviour(.closeMidReply)
                _ = try await recorder.requests(atLeast: 3)
                recorder.setBehaviour(.slow(.seconds(3)))
                _ = try await recorder.requests(atLeast: 4)
                try await waitUntil(seconds: 120) {
                    Self.status(uplinks, "owntracks")?.lastAnswer == "no answer in time"
                        || Self.status(uplinks, "owntracks")?.lastAnswer == "no whole answer in time"
                }
                recorder.setBehaviour(.normal)
                for second in 1..<4 { await uplinks.offer(Self.fix(second), motion: nil) }
                try await waitUntil(seconds: 120) { Self.status(uplinks, "owntracks")?.backlog == 0 }
            }
            let seconds = Self.seconds(recorder.stored)
            #expect(Set(seconds) == Set(0..<4))
            #expect(seconds.filter { $0 > 0 } == [1, 2, 3])
        }
    }

    /// Home Assistant shows the last arrival and keeps no history: after an outage it gets
    /// only the newest fix, the others counted as skipped.
    @Test func homeAssistantGetsOnlyTheNewestAfterAnOutage() async throws {
        try await withTemporaryDirectory { path in
            let home = try await UplinkServer(.homeAssistantTraccar(webhook: "abc"))
            let uplinks = try Uplinks(
                targets: [Self.target("osmand=\(home.url)/api/webhook/abc?id=van")],
                directory: URL(fileURLWithPath: path), timeouts: Self.quick,
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            try await Self.running(uplinks) {
                await uplinks.offer(Self.fix(0), motion: nil)
                _ = try await home.stored(atLeast: 1)
                // Delivered as the sender knows it, not only stored: a server stopped before its
                // answer arrives leaves the fix in the backlog, to be skipped with the others.
                try await waitUntil(seconds: 120) { Self.status(uplinks, "osmand")?.backlog == 0 }
                await home.stop()
                for second in 1..<10 { await uplinks.offer(Self.fix(second), motion: nil) }
                try await waitUntil(seconds: 120) { Self.status(uplinks, "osmand")?.state == .retrying }
                try await home.start()
                try await waitUntil(seconds: 120) { Self.status(uplinks, "osmand")?.backlog == 0 }
            }
            #expect(home.stored.count == 2)
            #expect(home.current(device: "van")?.latitude == Self.fix(9).lat)
            #expect(Self.status(uplinks, "osmand")?.skipped == 8)
        }
    }

    /// A stop goes out once with the last fix; the same stop renamed (the motion again,
    /// with another name) sends nothing more.
    @Test func aStopGoesOutOnceHoweverItIsNamed() async throws {
        try await withTemporaryDirectory { path in
            let recorder = try await UplinkServer(.recorder)
            let uplinks = try Self.ownTracksUplinks(to: recorder, in: path)
            try await Self.running(uplinks) {
                await uplinks.offer(Self.fix(0), motion: .moving)
                _ = try await recorder.stored(atLeast: 1)
                let since = Self.fix(0).time!
                await uplinks.motionChanged(.stopped(since: since, latitude: 52.5, longitude: 13.35, name: "Oberbaum"))
                _ = try await recorder.stored(atLeast: 2)
                await uplinks.motionChanged(.stopped(since: since, latitude: 52.5, longitude: 13.35, name: "Home"))
                await uplinks.offer(Self.fix(1), motion: .moving)
                let stored = try await recorder.stored(atLeast: 3)
                #expect(Self.seconds(stored) == [0, 0, 1])
            }
        }
    }

    /// Only real fixes leave: neither the simulator's nor the one restored at start.
    @Test func simulatedAndRestoredFixesAreNeverSent() async throws {
        try await withTemporaryDirectory { path in
            let uplinks = try Uplinks(
                targets: [Self.target("osmand=http://127.0.0.1:9/?id=van")], directory: URL(fileURLWithPath: path),
                timeouts: Self.quick, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            for source in [FixSource.simulated, .restored] {
                var fix = Self.fix(0)
                fix.source = source
                await uplinks.offer(fix, motion: nil)
            }
            #expect(Self.status(uplinks, "osmand")?.backlog == 0)
            await uplinks.offer(Self.fix(1), motion: nil)
            #expect(Self.status(uplinks, "osmand")?.backlog == 1)
        }
    }

    /// Stopping the senders gives up a request the server holds unanswered at once, long
    /// before its timeouts, and its fix stays in the outbox for the next start.
    @Test func stoppingGivesUpARequestUnderWay() async throws {
        try await withTemporaryDirectory { path in
            let traccar = try await UplinkServer(.traccarOsmAnd(devices: ["van"]))
            traccar.setBehaviour(.hang)
            var timeouts = Uplinks.Timeouts()
            (timeouts.read, timeouts.request) = (.seconds(120), .seconds(240))
            let uplinks = try Uplinks(
                targets: [Self.target("osmand=\(traccar.url)/?id=van")], directory: URL(fileURLWithPath: path),
                timeouts: timeouts, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            let stopped = Locked(false)
            let run = Task {
                await uplinks.run()
                stopped.withLock { $0 = true }
            }
            await uplinks.offer(Self.fix(0), motion: nil)
            try await waitUntil(seconds: 60) { traccar.requests.count == 1 }
            run.cancel()
            try await waitUntil(seconds: 30) { stopped.withLock { $0 } }
            #expect(Self.status(uplinks, "osmand")?.backlog == 1)
            #expect(traccar.stored.isEmpty)
            traccar.setBehaviour(.normal)
        }
    }

    /// Each way a request fails on the way to the server, as the status and the log say it.
    @Test(arguments: [
        (UplinkHTTPError.readTimeout as any Error, "no answer in time"),
        (UplinkHTTPError.deadlineExceeded, "no whole answer in time"),
        (UplinkHTTPError.closedBeforeAnswer, "the server closed the connection before its answer was whole"),
        (ChannelError.connectTimeout(.seconds(5)), "no connection in time"),
        (NIOSSLExtraError.failedToValidateHostname, "TLS: the server's certificate is not for this host"),
    ])
    func failuresOnTheWayInAFewWords(error: any Error, words: String) {
        #expect(Uplinks.describe(error) == words)
    }

    /// A server that is not there: the connection's refusal, in the system's words.
    @Test func aRefusedConnectionIsSaidAsTheSystemSaysIt() async throws {
        let result = try await UplinkTest.send(
            Self.fix(0), to: try Self.target("osmand=http://127.0.0.1:9/?id=van"),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        #expect(!result.delivered)
        #expect(result.words == SystemCall.message(ECONNREFUSED))
    }

    /// HTTPS with the test CA trusted through `ca-file`; without it, the certificate is not
    /// trusted and nothing is delivered.
    @Test func tlsChecksTheCertificate() async throws {
        try await withTemporaryDirectory { path in
            let authority = try await TestCertificateAuthority()
            let traccar = try await UplinkServer(.traccarOsmAnd(devices: ["van"]), tls: authority)
            let uplinks = try Uplinks(
                targets: [
                    Self.target("osmand=\(traccar.url)/?id=van name=trusted ca-file=\(authority.caFile)"),
                    Self.target("osmand=\(traccar.url)/?id=van name=untrusted"),
                ], directory: URL(fileURLWithPath: path), timeouts: Self.quick,
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
            try await Self.running(uplinks) {
                await uplinks.offer(Self.fix(0), motion: nil)
                _ = try await traccar.stored(atLeast: 1)
                try await waitUntil(seconds: 120) { Self.status(uplinks, "untrusted")?.state == .retrying }
                #expect(
                    Self.status(uplinks, "untrusted")?.lastAnswer
                        == "TLS: the server's certificate does not verify (not signed by a trusted authority, or expired)"
                )
                #expect(Self.status(uplinks, "trusted")?.state == .delivering)
            }
            #expect(traccar.stored.count == 1)
        }
    }
}
