import Foundation
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationTimeline
@testable import locationd

/// `locationd places` and `places rename`, as the built binary, on the commute sample's
/// timeline and on a running daemon.
@Suite(.timeLimit(.minutes(5)))
struct PlacesCommandTests {
    /// The places of the commute: one per stay; a name given by the user wins in the
    /// timeline, is kept by a rebuild with its id, and bad ids and names are one line, 64.
    @Test func placesAreListedRenamedAndKept() async throws {
        let directory = try await LogbookCommandTests.commute()
        let data = directory.path
        let listed = try await runLocationd(["places", "--json", "--data-dir", data])
        #expect(listed.status == 0, "\(listed.stderr)")
        let places = try listed.stdout.split(separator: "\n").map {
            try JSONDecoder().decode(PlacesAnswer.self, from: Data($0.utf8))
        }
        #expect(places.map(\.id).sorted() == [1, 2], "\(listed.stdout)")
        let renamed = try await runLocationd(["places", "rename", "1", "Office", "--data-dir", data])
        #expect(renamed.status == 0 && renamed.stdout == "place 1: Office\n", "\(renamed.stdout)\(renamed.stderr)")
        let rebuilt = try await runLocationd(["timeline", "--rebuild", "--data-dir", data])
        #expect(rebuilt.status == 0, "\(rebuilt.stderr)")
        let day = try await runLocationd(["timeline", "2026-09-15", "--json", "--data-dir", data])
        #expect(day.stdout.contains(#""name":"Office","place":1"#), "\(day.stdout)")
        #expect(day.stdout.contains(#""from_name":"Office""#), "\(day.stdout)")
        for bad in [["x", "Home"], ["0", "Home"], ["7", "Home"], ["1", String(repeating: "a", count: 300)]] {
            let run = try await runLocationd(["places", "rename"] + bad + ["--data-dir", data])
            #expect(run.status == 64, "\(bad.first ?? ""): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        }
        let empty = try TemporaryDirectory()
        let none = try await runLocationd(["places", "--data-dir", empty.path])
        #expect(none.status == 66, "\(none.stderr)")
    }

    /// A running daemon answers `?PLACES` and renames through its socket.
    @Test func aRunningDaemonRenamesAPlace() async throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let daemon = try await DaemonProcess(dataDirectory: data, arguments: ["--source", "simulated"])
        let listed = try await runLocationd(["places", "--socket", daemon.socketPath])
        #expect(listed.status == 0 && listed.stdout == "no places yet\n", "\(listed.stdout)\(listed.stderr)")
        let missing = try await runLocationd(["places", "rename", "3", "Home", "--socket", daemon.socketPath])
        #expect(missing.status == 64 && missing.stderr.contains("no place 3"), "\(missing.stderr)")
        let reply = try #require(
            try ControlClient.askPatiently(#"?PLACES={"rename":"x"};"#, socketPath: daemon.socketPath))
        #expect(reply.contains(#""class":"ERROR""#), "\(reply)")
        _ = try await daemon.stop()
    }

    /// `GET /api/v1/places` lists what `locationd places --json` lists, in the daemon's zone.
    @Test func theAPIListsThePlacesAsTheCommandDoes() async throws {
        let directory = try await LogbookCommandTests.commute()
        let daemon = try await DaemonProcess(
            dataDirectory: directory.path, arguments: ["--source", "simulated", "--timezone", "Asia/Kolkata"])
        let client = HTTPTestClient(port: try await daemon.httpPort())
        let answer = try await client.get("/api/v1/places")
        #expect(answer.status == 200 && answer.headers["content-type"] == "application/json")
        let object = try answer.object()
        let listed = try await runLocationd(["places", "--json", "--socket", daemon.socketPath])
        let lines = listed.stdout.split(separator: "\n")
        let expected = try lines.map { try JSONDecoder().decode(PlacesAnswer.self, from: Data($0.utf8)) }
        let served = try JSONDecoder().decode(
            [PlacesAnswer].self, from: JSONSerialization.data(withJSONObject: object["places"] ?? []))
        #expect(served == expected && expected.count == 2, "\(object)")
        #expect(object["count"] as? Int == 2 && object["timezone"] as? String == "Asia/Kolkata")
        _ = try await daemon.stop()
    }
}
