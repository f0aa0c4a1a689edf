import Foundation
import LocationFormats
import LocationState

/// One HTTP request to a target, for one fix (OsmAnd, OwnTracks, GPSLogger) or a batch (Overland),
/// in the form its servers read (docs/uplink-servers.md): always a POST.
public struct UplinkRequest: Sendable {
    /// The URL with its query (OsmAnd's fields are there).
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// The outbox ids of the fixes the request carries, oldest first.
    public var fixes: [Int64]
    /// The newest fix time among them.
    public var newestTime: Date?

    /// Fixes an Overland request carries at most: the Overland app's largest batch size.
    public static let overlandBatch = 500

    /// The request for the first fixes of `fixes` that `target` takes at once (one, or an
    /// Overland batch), with the credentials given. Fixes that no server of the protocol
    /// would keep (no position or no time) are listed in `fixes` too, so that they are
    /// passed over, but not sent; nil when none can be sent.
    ///
    /// - Parameters:
    ///   - password: the Basic authentication's password (with the target's user).
    ///   - token: sent as `Authorization: Bearer`.
    ///   - now: the OwnTracks message's `created_at`.
    public static func make(
        for target: UplinkTarget, fixes: some Collection<UplinkOutbox.Fix>, password: String?, token: String?,
        now: Date = Date()
    ) -> UplinkRequest? {
        var headers: [(name: String, value: String)] = [("User-Agent", "locationd")]
        if let token {
            headers.append(("Authorization", "Bearer " + token))
        } else if let user = target.user, let password {
            headers.append(("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()))
        }
        var ids: [Int64] = []
        switch target.protocol {
        case .osmand:
            for fix in fixes {
                ids.append(fix.id)
                guard let query = OsmAndQuery(fix.location, deviceID: target.device, moving: fix.moving) else {
                    continue
                }
                return UplinkRequest(
                    url: target.osmAndPrefix + query.percentEncoded, headers: headers, body: [], fixes: ids,
                    newestTime: fix.location.time)
            }
        case .owntracks:
            let identity = OwnTracksHTTPIdentity(user: target.user ?? target.device, device: target.device)
            for fix in fixes {
                ids.append(fix.id)
                let message = OwnTracksLocation(
                    fix.location, trackerID: OwnTracksLocation.trackerID(forDevice: target.device), createdAt: now,
                    topic: identity?.topic)
                guard let payload = message.payload else { continue }
                headers.append(("Content-Type", "application/json"))
                headers += identity?.headerFields ?? []
                return UplinkRequest(
                    url: target.url.absoluteString, headers: headers, body: payload, fixes: ids,
                    newestTime: fix.location.time)
            }
        case .gpslogger:
            for fix in fixes {
                ids.append(fix.id)
                guard let form = GPSLoggerForm(fix.location, deviceID: target.device) else { continue }
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
                return UplinkRequest(
                    url: target.url.absoluteString, headers: headers, body: form.body, fixes: ids,
                    newestTime: fix.location.time)
            }
        case .overland:
            var batch = OverlandBatch(deviceID: target.device)
            var newest: Date?
            for fix in fixes.prefix(overlandBatch) {
                ids.append(fix.id)
                let motion: [OverlandMotion] = fix.moving == false ? [.stationary] : []
                if batch.append(fix.location, motion: motion) {
                    newest = max(newest ?? .distantPast, fix.location.time!)
                }
            }
            guard batch.count > 0 else { break }
            headers.append(("Content-Type", "application/json"))
            return UplinkRequest(
                url: target.url.absoluteString, headers: headers, body: batch.body, fixes: ids, newestTime: newest)
        }
        return ids.isEmpty ? nil : UplinkRequest(url: "", headers: [], body: [], fixes: ids, newestTime: nil)
    }

    /// Whether the request carries nothing to send (its fixes are passed over).
    public var isEmpty: Bool { url.isEmpty }
}
