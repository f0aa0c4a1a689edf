import Foundation
import LocationState
import LocationTestSupport
import Logging
import Testing

@testable import locationd

/// A running control server with a responder the test controls.
final class ControlFixture: Sendable {
    let server: ControlServer
    let watchers = Watchers()

    /// The send closures of the clients that asked `?WATCH;`.
    final class Watchers: Sendable {
        let list = Locked<[@Sendable (String) -> Void]>([])
        var isEmpty: Bool { list.withLock(\.isEmpty) }
    }

    init(socketPath: String, limits: ControlServer.Limits = .init()) async throws {
        let watchers = watchers
        let responder = ControlResponder(
            last: {
                ControlAnswers.ShownFix(
                    current: Location(mode: .threeD, lat: 1.5, lon: 2.5, source: .simulated), lastKnown: nil)
            },
            status: { #"{"class":"STATUS","source":"simulated"}"# },
            watch: { send in
                watchers.list.withLock { $0.append(send) }
                return {}
            })
        server = ControlServer(
            path: socketPath, responder: responder, limits: limits, logger: Logger(label: "test"))
        try await server.start()
    }

    func broadcast(_ line: String) {
        for send in watchers.list.withLock({ $0 }) { send(line) }
    }
}

@Suite(.timeLimit(.minutes(10))) struct ControlSocketTests {
    @Test func answersRequestsInGpsdStyle() async throws {
        let directory = try TemporaryDirectory()
        let fixture = try await ControlFixture(socketPath: directory.path + "/control.sock")
        defer { Task { await fixture.server.stop() } }
        let last = try ControlClient.askPatiently("?LAST;", socketPath: fixture.server.path)
        #expect(last?.hasPrefix(#"{"class":"TPV""#) == true)
        let status = try ControlClient.askPatiently("?STATUS;", socketPath: fixture.server.path)
        #expect(status == #"{"class":"STATUS","source":"simulated"}"#)
        let unknown = try ControlClient.askPatiently("?FLY;", socketPath: fixture.server.path)
        #expect(unknown == #"{"class":"ERROR","message":"unrecognized request 'FLY'"}"#)
        let garbage = try ControlClient.askPatiently("\u{1}\u{2}\"zz", socketPath: fixture.server.path)
        #expect(garbage?.hasPrefix(#"{"class":"ERROR","message":"unrecognized request '"#) == true)
    }

    @Test func socketIsOwnerOnlyAndRemovedOnStop() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/control.sock"
        let fixture = try await ControlFixture(socketPath: path)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        await fixture.server.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try ControlClient.askPatiently("?LAST;", socketPath: path) == nil)
    }

    /// A path that is no socket (a file given to --socket by mistake) is said to be one,
    /// not taken for a daemon that is not running.
    @Test func aFileThatIsNoSocketIsAUsageError() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/notes.txt"
        try Data("x".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: LocationError.usage("\(path) is not a socket: name a daemon's control socket")) {
            try ControlClient.askPatiently("?LAST;", socketPath: path)
        }
        let run = try await runLocationd(["last", "--socket", path])
        #expect(run.status == 64)
        #expect(run.stderr == "locationd: \(path) is not a socket: name a daemon's control socket\n")
    }

    @Test func endlessLineIsCutOffAndOthersAreStillServed() async throws {
        let directory = try TemporaryDirectory()
        var limits = ControlServer.Limits()
        limits.maxRequestBytes = 512
        let fixture = try await ControlFixture(socketPath: directory.path + "/control.sock", limits: limits)
        defer { Task { await fixture.server.stop() } }
        let flooder = try connectRaw(fixture.server.path)
        let chunk = Data(repeating: UInt8(ascii: "A"), count: 4096)
        try? flooder.write(contentsOf: chunk)
        #expect(await readLine(flooder) == #"{"class":"ERROR","message":"request too long"}"#)
        #expect(await readLine(flooder) == nil)
        #expect(try ControlClient.askPatiently("?STATUS;", socketPath: fixture.server.path) != nil)
    }

    @Test func clientsBeyondTheLimitAreRefusedAndSlotsAreReturned() async throws {
        let directory = try TemporaryDirectory()
        var limits = ControlServer.Limits()
        limits.maxClients = 4
        let fixture = try await ControlFixture(socketPath: directory.path + "/control.sock", limits: limits)
        defer { Task { await fixture.server.stop() } }
        var held: [FileHandle] = []
        for _ in 0..<4 {
            let client = try connectRaw(fixture.server.path)
            try client.write(contentsOf: Data("?VERSION;".utf8))
            #expect(await readLine(client)?.contains(#""class":"VERSION""#) == true)
            held.append(client)
        }
        let refused = try connectRaw(fixture.server.path)
        #expect(await readLine(refused) == #"{"class":"ERROR","message":"too many clients"}"#)
        held.removeAll()
        try await waitUntil { fixture.server.clientCount == 0 }
        #expect(try ControlClient.askPatiently("?STATUS;", socketPath: fixture.server.path) != nil)
    }

    @Test func watcherReceivesChangesInOrder() async throws {
        let directory = try TemporaryDirectory()
        let fixture = try await ControlFixture(socketPath: directory.path + "/control.sock")
        defer { Task { await fixture.server.stop() } }
        let watcher = try connectRaw(fixture.server.path)
        try watcher.write(contentsOf: Data("?WATCH;\n".utf8))
        #expect(await readLine(watcher) == #"{"class":"WATCH","enable":true}"#)
        try await waitUntil { !fixture.watchers.isEmpty }
        for index in 0..<100 { fixture.broadcast(#"{"n":\#(index)}"#) }
        for index in 0..<100 { #expect(await readLine(watcher) == #"{"n":\#(index)}"#) }
    }

    @Test func watcherThatNeverReadsIsDroppedWithoutSlowingOthers() async throws {
        let directory = try TemporaryDirectory()
        var limits = ControlServer.Limits()
        limits.maxQueuedBytes = 64 * 1024
        let fixture = try await ControlFixture(socketPath: directory.path + "/control.sock", limits: limits)
        defer { Task { await fixture.server.stop() } }
        let sleeper = try connectRaw(fixture.server.path)
        try sleeper.write(contentsOf: Data("?WATCH;".utf8))
        try await waitUntil { fixture.server.clientCount == 1 && !fixture.watchers.isEmpty }
        let line = #"{"class":"TPV","padding":""# + String(repeating: "x", count: 1000) + #""}"#
        for _ in 0..<5000 { fixture.broadcast(line) }
        try await waitUntil { fixture.server.clientCount == 0 }
        #expect(try ControlClient.askPatiently("?STATUS;", socketPath: fixture.server.path) != nil)
    }
}
