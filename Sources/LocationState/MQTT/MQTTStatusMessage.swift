import Foundation
import LocationProviders
import LocationState

/// What locationd says about itself on its status topic (``MQTTTopics/status``, retained):
/// the `?STATUS;` state on each change of its name, `stopped` at a clean stop, and the
/// last will `offline`, in locationd's JSON lines.
///
/// `{"class":"STATUS","time":T,"source":"gpsd","state":"stale","connected":true,"lastFix":F}`,
/// `time` being when the state changed and `lastFix` the time of the last fix (the fix's
/// own); `{"class":"STATUS","time":T,"state":"stopped"}`; `{"class":"STATUS","state":"offline"}`,
/// which the broker sends when the daemon vanished (killed, or its network gone for 1.5
/// keepalive periods). A reader takes the retained location as current only while the
/// state is `live`; Home Assistant's entities are unavailable while it is `stopped` or
/// `offline`.
package enum MQTTStatusMessage {
    /// The status line for `status`, which changed at `time`.
    package static func payload(_ status: ProviderStatus, at time: Date) -> [UInt8] {
        var out: [UInt8] = []
        status.appendJSON(at: time, to: &out)
        return out
    }

    /// The line of a clean stop at `time`.
    package static func stopped(at time: Date) -> [UInt8] {
        Array(#"{"class":"STATUS","time":"\#(UTCCalendar.iso8601(time))","state":"stopped"}"#.utf8)
    }

    /// The last will: no time, since it is set when connecting and sent long after.
    package static let lastWill = Array(#"{"class":"STATUS","state":"offline"}"#.utf8)
}
