import Foundation
import LocationState
import LocationStores

/// A fix as `locationd last` reports it: the fix, how old it is, and whether it is current.
struct LastFixAnswer {
    /// Whether the fix is current.
    enum State: String {
        /// The daemon holds it as its current fix.
        case live
        /// The daemon's last fix, no longer current (the receiver lost its fix, or it timed out).
        case stale
        /// Read from the persisted store, by the daemon at start or by `last` itself.
        case restored
        /// Nothing is known.
        case none
    }

    var fix: Location?
    var state: State
    var ageSeconds: Double?

    /// Reads the daemon's answer to `?LAST;`: a TPV object with `age` and `state` added.
    init(daemonLine line: String) throws(LocationError) {
        let data = Data(line.utf8)
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["class"] as? String == "TPV"
        else { throw .unavailable("the daemon sent an answer that is not a TPV object: \(line.prefix(120))") }
        state = (object["state"] as? String).flatMap(State.init(rawValue:)) ?? .none
        ageSeconds = object["age"] as? Double
        fix = state == .none ? nil : try? JSONDecoder().decode(Location.self, from: data)
        if fix == nil { state = .none }
    }

    /// Reads the fix the daemon persisted in `directory`, when there is one.
    ///
    /// The file is checked as the daemon checks it at start (never through a
    /// symbolic link, at most ``LastFixStore/maxFileBytes``, a valid timed fix, see
    /// ``LastFixStore/storedFixProblem(_:)``); one that fails is reported as an
    /// unusable store (exit 69), never shown. Only `null` means nothing is stored.
    init(storeDirectory directory: String, now: Date = Date()) throws(LocationError) {
        let path = directory + "/" + DataDirectory.Name.lastFix
        let loaded: Data?
        do {
            loaded = try FileSystem.live.load(path)
        } catch {
            throw .unavailable(
                "\((error as? LocationError)?.message ?? "\(path): \(error)") The stored fix cannot be used.")
        }
        guard let data = loaded else {
            fix = nil
            state = .none
            return
        }
        guard data.count <= LastFixStore.maxFileBytes else {
            throw .unavailable(
                "\(path): the stored fix is larger than \(LastFixStore.maxFileBytes) bytes; the daemon moves such a file aside at start"
            )
        }
        let stored: Location?
        do {
            stored = try JSONDecoder().decode(Location?.self, from: data)
        } catch {
            throw .unavailable(
                "\(path): the stored fix is not readable JSON; the daemon moves such a file aside at start")
        }
        if let problem = LastFixStore.storedFixProblem(stored) {
            throw .unavailable(
                "\(path): the stored fix is not valid (\(problem)); the daemon moves such a file aside at start")
        }
        guard var stored else {
            fix = nil
            state = .none
            return
        }
        stored.source = .restored
        fix = stored
        state = .restored
        ageSeconds = stored.time.map { now.timeIntervalSince($0) }
    }

    /// The TPV object with `age` and `state`, as one line.
    func jsonLine(state: State) -> String {
        guard let fix else { return ControlAnswers.noFixKnown }
        return ControlAnswers.tpv(fix, ageSeconds: ageSeconds, state: state.rawValue)
    }

    /// Three human-readable lines: position and accuracy, motion, time and provenance.
    func text(state: State) -> String {
        guard let fix, let lat = fix.lat, let lon = fix.lon else { return "no fix known\n" }
        var lines = String(format: "%.7f %@  %.7f %@", abs(lat), lat < 0 ? "S" : "N", abs(lon), lon < 0 ? "W" : "E")
        if let eph = fix.eph { lines += String(format: "  ±%.1f m", eph) }
        lines += "\n"
        var motion: [String] = []
        if let altitude = fix.altMSL ?? fix.altHAE {
            motion.append(String(format: "altitude %.1f m%@", altitude, fix.altMSL == nil ? " (ellipsoid)" : ""))
        }
        if let speed = fix.speed { motion.append(String(format: "speed %.2f m/s", speed)) }
        if let track = fix.track { motion.append(String(format: "track %.1f°", track)) }
        if !motion.isEmpty { lines += motion.joined(separator: "  ") + "\n" }
        var provenance: [String] = []
        if let time = fix.time { provenance.append(UTCCalendar.iso8601(time)) }
        if let ageSeconds { provenance.append("age " + LastFixAnswer.describe(ageSeconds: ageSeconds)) }
        provenance.append("source \(fix.source.rawValue)")
        provenance.append(fix.mode == .threeD ? "3D fix" : "2D fix")
        provenance.append(state.rawValue)
        return lines + provenance.joined(separator: "  ") + "\n"
    }

    /// `0.4 s`, `12 min`, `3.5 h`, `2.1 days`; `-0.3 s` for a fix a little after this
    /// machine's clock (receivers and clocks differ by a fraction of a second). A second
    /// or more after it, the age is not known: the clock is behind (a board without a
    /// real-time clock, before it is set), and the line says so rather than show an age.
    static func describe(ageSeconds: Double) -> String {
        if ageSeconds <= -1 {
            return "unknown (the fix's time is \(describe(ageSeconds: -ageSeconds)) ahead of this machine's clock)"
        }
        return switch ageSeconds {
        case ..<120: String(format: "%.1f s", ageSeconds)
        case ..<7200: String(format: "%.0f min", ageSeconds / 60)
        case ..<172_800: String(format: "%.1f h", ageSeconds / 3600)
        default: String(format: "%.1f days", ageSeconds / 86400)
        }
    }
}
