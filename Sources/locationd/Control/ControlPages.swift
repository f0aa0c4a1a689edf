import Foundation
import LocationState
import LocationStores

/// A long answer (a tile list, a timeline), handed to the server a page of lines at a time.
///
/// The server asks for the next page only when the client has taken most of the last
/// one, so that a slow reader never makes the daemon queue more than a page beyond the
/// client's bound, and a tile log of any size is read a page at a time. A page that
/// cannot be read ends the answer with an ERROR line instead of its closing line, so a
/// client never takes a cut answer for a complete one.
///
/// - Important: used on the client's event loop only.
final class ControlPages {
    private var produce: () -> [String]
    private var finished = false

    /// - Parameter produce: the next page; an empty page, or one ending in the closing or
    ///   an ERROR line, is the last (it is not called again after returning one).
    init(_ produce: @escaping () -> [String]) {
        self.produce = produce
    }

    /// The next page; empty once the answer is complete.
    func next() -> [String] {
        guard !finished else { return [] }
        let page = produce()
        if page.isEmpty { finished = true }
        return page
    }

    /// An answer of one line.
    static func line(_ line: String) -> ControlPages {
        lines([line])
    }

    /// An answer made already, handed out `pageSize` lines at a time.
    static func lines(_ lines: [String], pageSize: Int = ControlAnswers.linesPerPage) -> ControlPages {
        var offset = 0
        return ControlPages {
            defer { offset += pageSize }
            return offset < lines.count ? Array(lines[offset..<min(offset + pageSize, lines.count)]) : []
        }
    }

    /// `?TILES;`: the TILE lines of `database` (none when the daemon has made none yet), a
    /// page read at a time, then the TILES line with the count.
    static func tiles(_ database: TileDatabase?, zoom: Int?, pageSize: Int = ControlAnswers.linesPerPage)
        -> ControlPages
    {
        var after: Tile?
        var count = 0
        var done = false
        return ControlPages {
            guard !done else { return [] }
            guard let database else {
                done = true
                return [ControlAnswers.tilesEnd(zoom: zoom, count: 0)]
            }
            do throws(LocationError) {
                let page = try database.tiles(zoom: zoom, after: after, limit: pageSize)
                count += page.count
                after = page.last?.tile
                var lines = page.map { TileLine($0).jsonString }
                if page.count < pageSize {
                    done = true
                    lines.append(ControlAnswers.tilesEnd(zoom: zoom, count: count))
                }
                return lines
            } catch {
                done = true
                return [ControlReply.error(error.message)]
            }
        }
    }
}
