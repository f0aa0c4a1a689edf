import Foundation
import LocationState
import LocationStores

/// The bearer token of a daemon whose control socket its group shares (`socket-mode
/// 0660`, the packaged service): the HTTP server then asks for it on loopback too, so that
/// the page and the API are open to whoever may ask the socket, and to nobody else.
///
/// It is made once (32 random bytes, base64url: 43 characters) and kept in the data
/// directory (`http.token`, 0600: the daemon's alone), so that a bookmarked page works
/// across restarts; remove the file and restart to make a new one. Members of the group
/// get it through the socket (`?PAGE;`), which `locationd page` prints as a URL.
enum HTTPToken {
    /// The token kept in `directory`, made and stored first when there is none (or the file
    /// holds no token of ours).
    ///
    /// - Throws: `cannotWrite` when a new token cannot be stored.
    static func kept(in directory: String) throws(LocationError) -> [UInt8] {
        let path = directory + "/" + DataDirectory.Name.httpToken
        if let data = try? FileSystem.live.load(path), data.count == length, data.allSatisfy(alphabet.contains) {
            return Array(data)
        }
        // `random(in:)` draws from the system's generator (getrandom(2)).
        let token = (0..<length).map { _ in alphabet[Int.random(in: alphabet.indices)] }
        do {
            try FileSystem.live.save(Data(token), path)
        } catch let error as LocationError {
            throw error
        } catch {
            throw .cannotWrite(path: path, reason: "\(error)")
        }
        return token
    }

    /// Characters of the token: base64url's, safe in a URL without escaping.
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    /// 43 characters of 6 bits: 258 bits.
    private static let length = 43
}
