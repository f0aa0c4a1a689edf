import Foundation
import LocationState
import LocationStores

extension TileDatabase {
    /// The daemon's tile database in `directory`, read-only, or `nil` when the daemon has
    /// not made one yet.
    ///
    /// The daemon made the file and is creating its table in the first moments after
    /// start (a foreign file would have stopped it at start): that too is "no tiles yet".
    static func daemons(in directory: URL) throws(LocationError) -> TileDatabase? {
        let url = directory.appendingPathComponent(fileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        do {
            return try openReadOnly(at: url)
        } catch  where error.message.contains("no locationd tile table") {
            return nil
        }
    }
}
