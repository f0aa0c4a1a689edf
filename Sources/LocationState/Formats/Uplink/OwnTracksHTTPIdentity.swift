/// Who an OwnTracks message posted over HTTP comes from: the user and the device, sent the
/// two ways the OwnTracks apps send them, since the servers each read one of them.
///
/// The headers `X-Limit-U` and `X-Limit-D` (the Android app's way) name them to the
/// OwnTracks Recorder's `/pub`, which lower-cases both and takes them over its `?u=` and
/// `?d=`, and to Home Assistant's webhook when the JSON has no topic. The JSON's `topic`
/// (the iOS app's way, ``topic``, for ``OwnTracksLocation/topic``) names the device to
/// Traccar's OwnTracks protocol, Dawarich and Home Assistant.
public struct OwnTracksHTTPIdentity: Sendable, Hashable {
    /// The header that names the user.
    public static let userHeader = "X-Limit-U"
    /// The header that names the device.
    public static let deviceHeader = "X-Limit-D"

    public let user: String
    public let device: String

    /// Nil when either name is empty or holds a byte that a topic level or a header value
    /// cannot carry as such: `/`, `+`, `#`, a control character, or anything beyond ASCII.
    public init?(user: String, device: String) {
        guard Self.isUsable(user), Self.isUsable(device) else { return nil }
        self.user = user
        self.device = device
    }

    /// `owntracks/USER/DEVICE`, the topic the apps would publish to over MQTT.
    public var topic: String { "owntracks/\(user)/\(device)" }

    /// The request's header fields that name the user and the device.
    public var headerFields: [(name: String, value: String)] {
        [(Self.userHeader, user), (Self.deviceHeader, device)]
    }

    private static func isUsable(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy {
                (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "+")
                    && $0 != UInt8(ascii: "#")
            }
    }
}
