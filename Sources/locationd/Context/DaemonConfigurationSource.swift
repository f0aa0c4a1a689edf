import Foundation
import LocationState

#if canImport(Glibc)
    import Glibc
#endif

/// Where `locationd run`'s settings come from, layer over layer: the flags over the
/// environment (`LOCATIOND_DATA_DIR`, ...) over the configuration file over the
/// built-in defaults.
///
/// Kept whole by the daemon, so that SIGHUP can resolve it again: the file is read
/// anew, the environment and flags are the ones the daemon started with.
struct DaemonConfigurationSource: Sendable {
    /// The environment variables' prefix: `LOCATIOND_` then the key in capitals,
    /// `-` as `_` (`freshness-timeout` is `LOCATIOND_FRESHNESS_TIMEOUT`).
    static let environmentPrefix = "LOCATIOND_"
    /// A configuration file larger than this is refused: it is not one a person wrote.
    static let maxFileBytes = 1 << 20

    /// The flags given, as settings, in the order they apply.
    var flags: [(key: String, value: String)] = []
    /// `--source`'s words, kept apart since a file path may hold spaces.
    var sourceWords: [String]?
    /// `--record` / `--no-record`.
    var record: Bool?
    /// `--config`: a file that must exist; else the default file is read when it exists.
    var explicitFile: String?
    var environment: [String: String] = ProcessInfo.processInfo.environment

    /// The file read: `--config`, else `/etc/locationd/locationd.conf` for root, else the
    /// user's (the packaged service sets `XDG_CONFIG_HOME=/etc`, which names the same file).
    var file: String {
        if let explicitFile { return explicitFile }
        if geteuid() == 0 { return "/etc/locationd/locationd.conf" }
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (NSHomeDirectory() + "/.config")
        return base + "/locationd/locationd.conf"
    }

    /// The settings, with every layer applied and checked.
    func resolve() throws(LocationError) -> DaemonConfiguration {
        var configuration = DaemonConfiguration(dataDirectory: DataDirectory.defaultURL().path)
        if let text = try readFile() { try configuration.apply(file: text, path: file) }
        for (name, value) in environment.sorted(by: { $0.key < $1.key })
        where name.hasPrefix(Self.environmentPrefix) {
            let key = name.dropFirst(Self.environmentPrefix.count).lowercased().replacingOccurrences(of: "_", with: "-")
            try configuration.apply(key: key, value: value, origin: "$\(name)")
        }
        if let sourceWords {
            configuration.source = try DaemonConfiguration.parseSource(sourceWords, origin: "--source")
        }
        for (key, value) in flags { try configuration.apply(key: key, value: value, origin: "--\(key)") }
        if let record { configuration.record = record }
        if configuration.timeZone == nil { configuration.timeZone = try LocalDays.system(environment: environment) }
        return configuration
    }

    /// The configuration file's text, or nil when the default file does not exist.
    ///
    /// Anything but a regular file (a FIFO, a device) is refused without waiting for it;
    /// text that is not UTF-8 is refused with the line that holds it.
    private func readFile() throws(LocationError) -> String? {
        let path = file
        guard FileManager.default.fileExists(atPath: path) else {
            if explicitFile != nil { throw .fileNotFound(path: path) }
            return nil
        }
        let data = try ConfiguredFile.contents(of: path, maxBytes: Self.maxFileBytes)
        guard let text = String(validating: data, as: UTF8.self) else {
            let lines = data.split(separator: 10, omittingEmptySubsequences: false)
            let number = lines.firstIndex { String(validating: $0, as: UTF8.self) == nil } ?? 0
            throw .usage(
                "\(path):\(number + 1): not UTF-8 text: \((String.escapedForTerminal(bytes: lines[number])).quotedForMessage)"
            )
        }
        return text
    }
}
