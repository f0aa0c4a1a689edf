import Foundation
import LocationState
import LocationTestSupport
import Testing

@testable import LocationFormats

/// The Home Assistant traccar and gpslogger stand-ins answer as the real webhooks' schemas
/// do: each query or form goes to the stand-in and, in the Python of the Home Assistant
/// that `scripts/home-assistant` installs, through aiohttp's parsing (yarl for a query,
/// parse_qsl into a MultiDict for a form body) and the integration's `WEBHOOK_SCHEMA`
/// (homeassistant/components/traccar/__init__.py:42-88, gpslogger/__init__.py:41-88),
/// which gives the body Home Assistant would answer. Costs about 3 s per import, no server.
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

    /// Form bodies with one matter each: what the encoder writes, and every refusal.
    private static let forms = [
        String(decoding: StandInFixtures.gpsLogger(device: "van-1"), as: UTF8.self),
        "latitude=1&longitude=2&device=van", "latitude=91&longitude=2&device=van",
        "latitude=1&longitude=nan&device=van", "latitude=1&longitude=2&device=van&speed=fast",
        "latitude=1&longitude=2&device=van&hdop=1", "latitude=1&longitude=2", "latitude=1&device=van",
        "latitude=%201_0%20&longitude=2&device=a+b%2Bc", "latitude=1&longitude=2&device=van&device=car",
        "latitude=1&longitude=2&device=van&accuracy=&battery=50", "latitude=1&longitude=2&device=van\n",
    ]

    @Test func gpsLoggerAnswersAsTheRealSchema() async throws {
        let expected = try await Self.realAnswers(
            Self.forms, integration: "gpslogger", parse: "MultiDict(parse_qsl(text.rstrip(), keep_blank_values=True))",
            device: "device")
        let server = try await UplinkServer(.homeAssistantGPSLogger(webhook: "hook"))
        try await withUplinkTestClient { client throws in
            for (form, (status, body)) in zip(Self.forms, expected) {
                let answer = try await client.send(
                    server.url + "/api/webhook/hook", headers: StandInFixtures.formHeaders, body: Array(form.utf8))
                #expect(answer.status == status, "\(form)")
                #expect(answer.body == body, "\(form)")
            }
        }
    }

    @Test func answersAsTheRealSchema() async throws {
        let expected = try await Self.realAnswers(
            Self.queries, integration: "traccar", parse: "URL('http://h/api/webhook/hook?' + text).query", device: "id")
        let server = try await UplinkServer(.homeAssistantTraccar(webhook: "hook"))
        try await withUplinkTestClient { client throws in
            for (query, (status, body)) in zip(Self.queries, expected) {
                let answer = try await client.send(server.url + "/api/webhook/hook?" + query)
                #expect(answer.status == status, "\(query)")
                #expect(answer.body == body, "\(query)")
            }
        }
    }

    /// What Home Assistant's `integration` answers to each of `inputs`, read by the Python
    /// expression `parse` of `text`: 200 and "Setting location for " and the schema's
    /// `device` field, or 422 and voluptuous' message.
    private static func realAnswers(_ inputs: [String], integration: String, parse: String, device: String)
        async throws -> [(Int, String)]
    {
        let installed = try await runProgram(Repository.path("scripts/home-assistant"), ["--installed"])
        try #require(installed.status == 0, "\(installed.stderr)")
        let python = URL(fileURLWithPath: installed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            .deletingLastPathComponent().appendingPathComponent("python").path
        let script = """
            import json, sys
            from urllib.parse import parse_qsl
            import voluptuous as vol
            from multidict import MultiDict
            from yarl import URL
            from homeassistant.components.\(integration) import WEBHOOK_SCHEMA
            out = []
            for text in json.loads(sys.argv[1]):
                try:
                    data = WEBHOOK_SCHEMA(dict(\(parse)))
                    out.append([200, "Setting location for " + data["\(device)"]])
                except vol.MultipleInvalid as error:
                    out.append([422, error.error_message])
            print(json.dumps(out))
            """
        let arguments = String(decoding: try JSONSerialization.data(withJSONObject: inputs), as: UTF8.self)
        let run = try await runProgram(python, ["-c", script, arguments])
        try #require(run.status == 0, "\(run.stderr)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[Any]])
        return rows.map { ($0[0] as? Int ?? 0, $0[1] as? String ?? "") }
    }
}
