import ArgumentParser
import Foundation
import LocationRegions
import LocationState

/// `locationd regions`: the regions, and which the device is in now.
///
/// The membership comes from the running daemon (`?REGIONS;`), else from the store
/// the daemon keeps (`regionMembership.json` in the data directory), read without
/// changing it. The regions come from `--regions`, else from the file the daemon uses.
struct RegionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regions",
        abstract: "List the regions and which of them the device is in.",
        discussion: """
            Asks the running daemon; when none answers, reads the membership the daemon stored. \
            Exit status 0; 64 bad usage or a bad region file; 66 a region file that cannot be read; \
            69 daemon or store unavailable.
            """)

    @OptionGroup var dataDirectory: DataDirectoryOption

    @OptionGroup var socket: DaemonSocketOption

    @Option(help: ArgumentHelp("The GeoJSON region file (default: the daemon's).", valueName: "file"))
    var regions: String?

    @Flag(help: "Print one JSON object.")
    var json = false

    func run() throws {
        do {
            print(try listing(), terminator: "")
        } catch {
            throw error.exit()
        }
    }

    private func listing() throws(LocationError) -> String {
        let directory = dataDirectory.url.path
        let sockets = DaemonSockets(socket: socket.path, dataDirectory: dataDirectory)
        var file = regions
        var membership: MembershipState
        let origin: String
        if let answer = try Self.ask(sockets) {
            file = file ?? answer.file
            var pending: [RegionID: Date] = [:]
            for id in answer.pending { pending[RegionID(id)] = Date() }
            membership = MembershipState(
                inside: Set(answer.inside.map { RegionID($0) }), pendingSince: pending, settled: true)
            origin = "daemon"
        } else {
            guard file != nil else {
                throw .usage(
                    "\(sockets.nobodyAnswers), or it monitors no regions; name a region file with --regions FILE")
            }
            membership = try Self.stored(in: directory)
            origin = "store"
            StandardError.line(
                "locationd: \(sockets.nobodyAnswers), or it monitors no regions; membership stored in \(directory)")
        }
        guard let file else { throw .usage("no region file: name one with --regions FILE") }
        let set = try RegionSet.load(geoJSONFile: file)
        membership = membership.retaining(set)
        return json ? Self.json(set, membership, file: file, origin: origin) : Self.text(set, membership)
    }

    /// The daemon's `?REGIONS;` answer; nil when no daemon answers or it monitors no regions.
    private static func ask(_ sockets: DaemonSockets) throws(LocationError) -> DaemonAnswer? {
        guard let reply = try sockets.ask("?REGIONS;") else { return nil }
        guard let answer = try? JSONDecoder().decode(DaemonAnswer.self, from: Data(reply.line.utf8)),
            answer.class == "REGIONS"
        else { return nil }
        return answer
    }

    /// The `?REGIONS;` answer's fields.
    private struct DaemonAnswer: Decodable {
        let `class`: String
        let file: String
        let inside: [String]
        let pending: [String]
    }

    /// The membership the daemon stored, or none; never changes the file.
    static func stored(in directory: String) throws(LocationError) -> MembershipState {
        let path = directory + "/" + DataDirectory.Name.regionMembership
        guard let data = FileManager.default.contents(atPath: path) else { return .initial }
        do {
            return try JSONDecoder().decode(MembershipState.self, from: data)
        } catch {
            throw .unavailable("\(path): the stored membership cannot be decoded; the daemon will move it aside")
        }
    }

    /// `in    home  "Home"  circle 100 m`, one line per region.
    static func text(_ set: RegionSet, _ membership: MembershipState) -> String {
        set.regions.map { region in
            let mark =
                membership.inside.contains(region.id)
                ? "in  " : membership.pendingSince[region.id] != nil ? "wait" : "out "
            return
                "\(mark)  \(region.id.rawValue.escapedForTerminal)  \"\(region.name.escapedForTerminal)\"  \(shape(region))\n"
        }.joined()
    }

    static func json(_ set: RegionSet, _ membership: MembershipState, file: String, origin: String) -> String {
        let regions = set.regions.map { region in
            RegionList.Region(
                id: region.id.rawValue, name: region.name, type: type(region),
                inside: membership.inside.contains(region.id))
        }
        return JSONLineEncoder().encodeFinite(RegionList(file: file, from: origin, regions: regions)) + "\n"
    }

    private struct RegionList: Encodable {
        struct Region: Encodable {
            let id: String
            let name: String
            let type: String
            let inside: Bool
        }

        let `class` = "REGIONS"
        let file: String
        let from: String
        let regions: [Region]
    }

    private static func type(_ region: Region) -> String {
        if case .circle = region.geometry { "circle" } else { "polygon" }
    }

    private static func shape(_ region: Region) -> String {
        switch region.geometry {
        case .circle(let lat, let lon, let radius): String(format: "circle %.0f m around %.6f %.6f", radius, lat, lon)
        case .polygons(let parts): parts.count == 1 ? "polygon" : "multipolygon of \(parts.count)"
        }
    }
}
