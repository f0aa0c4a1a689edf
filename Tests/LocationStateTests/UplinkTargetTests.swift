import Foundation
import LocationTestSupport
import Testing

@testable import LocationState
@testable import LocationUplinks

/// The `uplink` setting: `PROTOCOL=URL` and options, secrets kept off the command line and
/// masked wherever a URL is shown.
@Suite(.timeLimit(.minutes(10))) struct UplinkTargetTests {
    private func parse(_ text: String, origin: String = "locationd.conf:3") throws(LocationError) -> UplinkTarget {
        try UplinkTarget.parse(text, origin: origin, visible: origin.hasPrefix("--"), hostName: "pi.example")
    }

    private func error(_ text: String, origin: String = "locationd.conf:3") -> String? {
        do {
            _ = try parse(text, origin: origin)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func osmandTakesItsDeviceFromTraccarsIDField() throws {
        let target = try parse("osmand=http://traccar.local:5055/?id=van")
        #expect(target.protocol == .osmand && target.name == "osmand" && target.device == "van")
        #expect(target.history == .all && !target.keepsCurrentByArrival)
        let other = try parse("owntracks=https://recorder.example/pub")
        // Without an id, the machine's name (its first label).
        #expect(other.device == "pi")
    }

    @Test func optionsAreRead() throws {
        let target = try parse(
            "overland=https://dawarich.example/api/v1/overland/batches name=dawarich device=car user=me token-file=/etc/locationd/dawarich.token history=latest ca-file=/etc/ca.pem"
        )
        #expect(target.name == "dawarich" && target.device == "car" && target.user == "me")
        #expect(target.token == .file("/etc/locationd/dawarich.token") && target.password == nil)
        #expect(target.history == .latest && target.caFile == "/etc/ca.pem")
    }

    /// Home Assistant keeps the position that arrived last and no history.
    @Test func aHomeAssistantWebhookGetsTheNewestOnlyByDefault() throws {
        let target = try parse("osmand=http://ha.local:8123/api/webhook/abc")
        #expect(target.history == .latest && target.keepsCurrentByArrival)
        #expect(try parse("osmand=http://ha.local:8123/api/webhook/abc history=all").history == .all)
    }

    @Test(arguments: [
        ("traccar=http://host/", "uplink protocol must be osmand, owntracks, overland, gpslogger"),
        ("osmand", "uplink must be PROTOCOL=URL"),
        ("osmand=ftp://host/", "uplink URL must be http:// or https:// with a host"),
        ("osmand=http:///nohost", "uplink URL must be http:// or https:// with a host"),
        ("osmand=http://host:99999/", "port must be from 1 to 65535"),
        ("osmand=http://host/ colour=red", "unknown uplink option 'colour'"),
        ("osmand=http://host/ history=some", "uplink history must be all or latest"),
        ("osmand=http://host/ name=a/b", "uplink name must be"),
        ("osmand=http://host/ device=a device=b", "uplink option device is given twice"),
        ("osmand=http://host/ token-file=/a token-env=B", "token-file and token-env exclude each other"),
    ])
    func badSettingsAreOneLineNamingWhere(text: String, message: String) {
        let text = error(text)
        #expect(text?.hasPrefix("locationd.conf:3: ") == true)
        #expect(text?.contains(message) == true, "\(text ?? "no error")")
    }

    /// Every user reads a process's arguments: no secret there.
    @Test func secretsOnTheCommandLineAreRefusedAndNeverQuoted() throws {
        let password = error("owntracks=https://me:hunter2@recorder.example/pub", origin: "--uplink")
        #expect(password?.contains("password-file=") == true)
        #expect(password?.contains("hunter2") == false)
        let key = error("owntracks=https://dawarich.example/api/v1/owntracks/points?api_key=s3cret", origin: "--uplink")
        #expect(key?.contains("api_key") == true && key?.contains("s3cret") == false)
        // In the file (mode 0600 or 0640) they are allowed.
        let target = try parse("owntracks=https://me:hunter2@recorder.example/pub?api_key=s3cret&u=me")
        #expect(target.user == "me")
        #expect(target.maskedURL == "https://me:***@recorder.example/pub?api_key=***&u=me")
        let bad = error("osmand=ftp://me:hunter2@host/")
        #expect(bad?.contains("hunter2") == false)
    }

    @Test func secretsAreReadFromAFileOrTheEnvironment() throws {
        try withTemporaryDirectory { path in
            let file = path + "/token"
            try "  t0ken \nsecond line\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(try UplinkSecret.file(file).value() == "t0ken")
            #expect(try UplinkSecret.environment("TOKEN").value(environment: ["TOKEN": "x"]) == "x")
            #expect(throws: LocationError.self) { try UplinkSecret.environment("TOKEN").value(environment: [:]) }
            try "\n".write(toFile: file, atomically: true, encoding: .utf8)
            #expect(throws: LocationError.self) { try UplinkSecret.file(file).value() }
        }
    }

    /// A target is known by its name: a later layer replaces it, one layer cannot name it twice.
    @Test func settingsLayerTargetsByName() throws {
        var settings = UplinkSettings()
        #expect(try settings.apply(key: "uplink", value: "osmand=http://a/?id=1", origin: "f.conf:1"))
        #expect(try settings.apply(key: "uplink", value: "osmand=http://b/ name=b", origin: "f.conf:2"))
        #expect(throws: LocationError.self) {
            try settings.apply(key: "uplink", value: "osmand=http://c/", origin: "f.conf:3")
        }
        #expect(try settings.apply(key: "uplink-1", value: "osmand=http://d/", origin: "$LOCATIOND_UPLINK_1"))
        #expect(settings.targets.map(\.name) == ["b", "osmand"])
        #expect(settings.targets.last?.url.host == "d")
        #expect(try settings.apply(key: "uplink-min-interval", value: "5s", origin: "--uplink-min-interval"))
        #expect(settings.policy.minimumInterval == 5)
        #expect(try !settings.apply(key: "uplinks", value: "x", origin: "f.conf:4"))
    }
}
