import Foundation
import LocationState
import Testing

/// A real Home Assistant (from PyPI, in the virtual environment `scripts/home-assistant`
/// makes) on a free loopback port with a configuration directory of its own, onboarded,
/// talked to through its REST API as its frontend would: the config flows that set up
/// integrations, the states, templates. Killed when released.
package final class HomeAssistant: @unchecked Sendable {
    // @unchecked Sendable: every stored property is a `let` set in init; ChildProcess is
    // safe for the calls made on it later (isRunning, signals, waitUntilExit).
    package let port: Int
    package let directory: String
    private let process: ChildProcess
    private let client: HTTPTestClient
    /// The access token onboarding gave.
    private let token: String

    /// One Home Assistant starts at a time: two starting together took both cores for a
    /// minute, and tests beside them (a daemon's 1 Hz fixes, a socket's 30 s bound) starved.
    private static let starts = StartGate()

    /// Home Assistant's own log file.
    package var logFile: String { directory + "/home-assistant.log" }

    /// What Home Assistant logged so far.
    package var log: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }

    /// Writes a minimal configuration (the HTTP server on loopback, the API, config
    /// flows, onboarding; MQTT discovery's debug lines, which name each entity's origin),
    /// starts Home Assistant without letting it install anything (`--skip-pip`: the
    /// environment has all it needs) and onboards a user, whose token the requests carry.
    package init() async throws {
        let hass = try await Self.installedHass()
        let port = try GPSFake.freeLoopbackPort()
        let directory = NSTemporaryDirectory() + "locationd-home-assistant-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try """
        homeassistant:
          name: Test
          latitude: 52.52
          longitude: 13.4
          elevation: 0
          unit_system: metric
          time_zone: UTC
          country: DE
          currency: EUR
        http:
          server_host: 127.0.0.1
          server_port: \(port)
        api:
        config:
        onboarding:
        logger:
          default: info
          logs:
            homeassistant.components.mqtt.discovery: debug

        """.write(toFile: directory + "/configuration.yaml", atomically: true, encoding: .utf8)
        let client = HTTPTestClient(port: port)
        let process: ChildProcess
        (process, token) = try await Self.starts.through {
            // Niced: its start takes a core for about a minute, which the tests running beside it
            // (and the daemons they wait on with 30 s bounds) need more; nice execs, so the pid is hass's.
            let process = try ChildProcess(
                "/usr/bin/nice",
                ["-n", "10", hass, "-c", directory, "--skip-pip", "--log-file", directory + "/home-assistant.log"])
            do {
                return (process, try await Self.onboard(process, client, logFile: directory + "/home-assistant.log"))
            } catch {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw error
            }
        }
        (self.port, self.directory, self.process, self.client) = (port, directory, process, client)
    }

    /// Waits for Home Assistant's HTTP server, then onboards a user; returns its access token.
    private static func onboard(_ process: ChildProcess, _ client: HTTPTestClient, logFile: String) async throws
        -> String
    {
        // A minute is usual on a loaded machine; give it four.
        _ = try await waitUntil(seconds: 240, "Home Assistant's HTTP server") { () async -> Bool? in
            guard process.isRunning else { return true }
            return (try? await client.get("/api/onboarding"))?.status == 200 ? true : nil
        }
        try #require(
            process.isRunning,
            "Home Assistant exited at start: \((try? String(contentsOfFile: logFile, encoding: .utf8))?.suffix(2000) ?? "")"
        )
        let base = "http://127.0.0.1:\(client.port)/"
        let user = try await client.request(
            "POST", "/api/onboarding/users",
            json: [
                "client_id": base, "name": "Test", "username": "test", "password": "locationd-test", "language": "en",
            ])
        let code = try #require(try user.object()["auth_code"] as? String, "onboarding: \(user.body)")
        let tokens = try await client.post(
            "/auth/token", form: ["grant_type": "authorization_code", "code": code, "client_id": base])
        return try #require(try tokens.object()["access_token"] as? String, "token: \(tokens.body)")
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The path of `hass` in the environment `scripts/home-assistant` made; fails the test
    /// with the script's one line when it has not been made.
    private static func installedHass() async throws -> String {
        let run = try await runProgram(Repository.path("scripts/home-assistant"), ["--installed"])
        try #require(run.status == 0, "\(run.stderr)")
        return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private var authorization: [String: String] { ["Authorization": "Bearer \(token)"] }

    /// `GET path` of the REST API, as JSON.
    package func get(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Any {
        let answer = try await client.get(path, headers: authorization)
        try #require(
            answer.status == 200, "GET \(path): \(answer.status) \(answer.body)", sourceLocation: sourceLocation)
        return try JSONSerialization.jsonObject(with: Data(answer.body.utf8))
    }

    /// `POST path` of the REST API with a JSON body; the answer's body.
    package func post(_ path: String, _ json: Any, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> String
    {
        let answer = try await client.request("POST", path, json: json, headers: authorization)
        try #require(
            answer.status == 200, "POST \(path): \(answer.status) \(answer.body)", sourceLocation: sourceLocation)
        return answer.body
    }

    /// Sets up integration `domain` through its config flow, as the frontend's "Add
    /// integration" does: starts the flow, submits `input` to each form (the first one's
    /// answer creates the entry for the integrations used here). Returns the last answer,
    /// the created entry (``webhookID(of:)`` reads a webhook integration's).
    @discardableResult
    package func setUp(_ domain: String, with input: [String: Any]) async throws -> [String: Any] {
        let flow =
            try JSONSerialization.jsonObject(
                with: Data(try await post("/api/config/config_entries/flow", ["handler": domain]).utf8))
            as? [String: Any]
        var answer = try #require(flow, "\(domain): no flow")
        while answer["type"] as? String == "form", let id = answer["flow_id"] as? String {
            let body = try await post("/api/config/config_entries/flow/\(id)", input)
            answer = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        }
        try #require(answer["type"] as? String == "create_entry", "\(domain)'s config flow ended with \(answer)")
        return answer
    }

    /// The webhook id of an entry ``setUp(_:with:)`` created: the last part of the
    /// `webhook_url` its answer shows the user (`…/api/webhook/ID`).
    package static func webhookID(of entry: [String: Any]) throws -> String {
        let placeholders = entry["description_placeholders"] as? [String: Any]
        let url = try #require(placeholders?["webhook_url"] as? String, "no webhook_url in \(entry)")
        let path = try #require(URL(string: url)?.path, "\(url)")
        try #require(path.hasPrefix("/api/webhook/"), "\(url)")
        return String(path.dropFirst("/api/webhook/".count))
    }

    /// Every entity's state object (`entity_id`, `state`, `attributes`).
    package func states() async throws -> [[String: Any]] {
        try #require(try await get("/api/states") as? [[String: Any]])
    }

    /// The state object of `entity`, nil when Home Assistant has no such entity.
    package func state(of entity: String) async throws -> [String: Any]? {
        try await states().first { $0["entity_id"] as? String == entity }
    }

    /// `template` rendered by Home Assistant (`POST /api/template`).
    package func render(_ template: String) async throws -> String {
        try await post("/api/template", ["template": template])
    }

    /// Waits until `entity`'s state object passes `condition` (or, with nil, until the
    /// entity exists), and returns it; fails the test with the last state seen after `seconds`.
    @discardableResult
    package func waitFor(
        _ entity: String, _ description: String, seconds: Double = 120,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: @escaping @Sendable ([String: Any]) -> Bool = { _ in true }
    ) async throws -> [String: Any] {
        let last = Locked<String>("none")
        do {
            return try await waitUntil(
                seconds: seconds, "\(entity) \(description)", sourceLocation: sourceLocation
            ) { () async throws -> [String: Any]? in
                guard let state = try await self.state(of: entity) else { return nil }
                last.withLock { $0 = "\(state["state"] ?? "?") \(state["attributes"] ?? [:])" }
                return condition(state) ? state : nil
            }
        } catch {
            Issue.record("\(entity)'s last state: \(last.withLock { $0 })", sourceLocation: sourceLocation)
            throw error
        }
    }
}
