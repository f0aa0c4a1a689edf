import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import LocationFormats

/// The Home Assistant traccar stand-in answers as the real webhook's schema does: each
/// query goes to the stand-in and, in the Python of the Home Assistant that
/// `scripts/home-assistant` installs, through aiohttp's query parsing (yarl) and
/// `traccar.WEBHOOK_SCHEMA` (homeassistant/components/traccar/__init__.py:42-88), which
/// gives the body Home Assistant would answer. Costs about 3 s (the import), no server.
@Suite(.timeLimit(.minutes(5))) struct HomeAssistantStandInConformanceTests {
    /// Queries with one matter each: accepted forms, every refusal the schema makes.
    private static let queries = [
        StandInFixtures.osmAnd(), "id=van&lat=1&lon=2", "id=van&lat=1&lon=2&timestamp=1700000000.5",
        "id=van&lat=91&lon=2", "id=van&lat=1&lon=181", "id=van&lat=nan&lon=2", "id=van&lat=1&lon=2&speed=fast",
        "id=van&lat=1&lon=2&accuracy=", "id=van&lat=%201%20&lon=2_0&timestamp=%2B17", "id=van&lat=1", "lat=1&lon=2",
        "id=v-a-n&lat=1&lon=2", "id=van&lat=1;x=2&lon=2", "id=van&id=car&lat=1&lon=2", "id=a%2Bb+c&lat=1&lon=2",
        "id=van&lat=1e1&lon=2", "id=van&lat=1&lon=2&timestamp=1_700", "id=van&lat=1&lon=2&altitude=inf",
        "id=van&lat=1&lon=2&hdop=x&valid=maybe",
    ]

    @Test func answersAsTheRealSchema() async throws {
        let expected = try await Self.realAnswers(Self.queries)
        let server = try await UplinkServer(.homeAssistantTraccar(webhook: "hook"))
        try await withUplinkTestClient { client throws in
            for (query, (status, body)) in zip(Self.queries, expected) {
                let answer = try await client.send(server.url + "/api/webhook/hook?" + query)
                #expect(answer.status == status, "\(query)")
                #expect(answer.body == body, "\(query)")
            }
        }
    }

    /// What Home Assistant answers to each query: 200 and "Setting location for ID", or
    /// 422 and voluptuous' message.
    private static func realAnswers(_ queries: [String]) async throws -> [(Int, String)] {
        let installed = try await runProgram(Repository.path("scripts/home-assistant"), ["--installed"])
        try #require(installed.status == 0, "\(installed.stderr)")
        let python = URL(fileURLWithPath: installed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            .deletingLastPathComponent().appendingPathComponent("python").path
        let script = """
            import json, sys
            import voluptuous as vol
            from yarl import URL
            from homeassistant.components.traccar import WEBHOOK_SCHEMA
            out = []
            for query in json.loads(sys.argv[1]):
                try:
                    data = WEBHOOK_SCHEMA(dict(URL("http://h/api/webhook/hook?" + query).query))
                    out.append([200, "Setting location for " + data["id"]])
                except vol.MultipleInvalid as error:
                    out.append([422, error.error_message])
            print(json.dumps(out))
            """
        let arguments = String(decoding: try JSONSerialization.data(withJSONObject: queries), as: UTF8.self)
        let run = try await runProgram(python, ["-c", script, arguments])
        try #require(run.status == 0, "\(run.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[Any]])
        return rows.map { ($0[0] as? Int ?? 0, $0[1] as? String ?? "") }
    }
}
