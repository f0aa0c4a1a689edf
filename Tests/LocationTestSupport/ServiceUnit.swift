import Foundation
import Testing

/// The packaged systemd unit, `dist/locationd.service`, read as systemd reads the
/// settings the sandbox test checks against.
package struct ServiceUnit {
    /// Every `Key=value` of the `[Service]` section, in order (a key may repeat).
    package let settings: [(key: String, value: String)]

    /// The unit in this repository.
    package static func packaged() throws -> ServiceUnit {
        try ServiceUnit(text: String(contentsOfFile: Repository.path("dist/locationd.service"), encoding: .utf8))
    }

    package init(text: String) {
        var section = ""
        var settings: [(String, String)] = []
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") { section = line }
            guard section == "[Service]", !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            settings.append((String(line[..<equals]), String(line[line.index(after: equals)...])))
        }
        self.settings = settings
    }

    /// The values of `key`, in order.
    package func values(_ key: String) -> [String] { settings.filter { $0.key == key }.map(\.value) }

    /// The system calls `SystemCallFilter=` lets through, as systemd combines its lines: an
    /// allow list first, then each `~` line takes its calls away. Sets (`@system-service`)
    /// are expanded, nested sets too, with `systemd-analyze syscall-filter`.
    package func allowedSystemCalls() async throws -> Set<String> {
        let sets = try await Self.systemCallSets()
        var allowed: Set<String> = []
        for line in values("SystemCallFilter") {
            let denying = line.hasPrefix("~")
            let names = (denying ? String(line.dropFirst()) : line).split(separator: " ").map(String.init)
            let calls = try names.reduce(into: Set<String>()) { $0.formUnion(try Self.expand($1, in: sets)) }
            if denying { allowed.subtract(calls) } else { allowed.formUnion(calls) }
        }
        return allowed
    }

    /// The address families `RestrictAddressFamilies=` allows (`AF_UNIX`...).
    package var allowedAddressFamilies: Set<String> {
        Set(values("RestrictAddressFamilies").flatMap { $0.split(separator: " ").map(String.init) })
    }

    /// Every set systemd knows, by name, with its members (calls and nested sets).
    private static func systemCallSets() async throws -> [String: [String]] {
        let run = try await runProgram("/usr/bin/systemd-analyze", ["syscall-filter", "--no-pager"])
        try #require(run.status == 0, "systemd-analyze syscall-filter: \(run.stderr)")
        var sets: [String: [String]] = [:]
        var current: String?
        for line in run.stdout.split(separator: "\n") {
            if line.hasPrefix("@") {
                current = String(line.split(separator: " ")[0])
                sets[current!] = []
            } else if let name = current {
                let member = line.trimmingCharacters(in: .whitespaces)
                if !member.isEmpty, !member.hasPrefix("#") { sets[name]?.append(member) }
            }
        }
        return sets
    }

    private static func expand(_ name: String, in sets: [String: [String]]) throws -> Set<String> {
        guard name.hasPrefix("@") else { return [name] }
        let members = try #require(sets[name], "systemd-analyze knows no set \(name)")
        return try members.reduce(into: Set<String>()) { $0.formUnion(try expand($1, in: sets)) }
    }
}
