import CMosquitto
import LocationState
import LocationStores

/// libmosquitto, loaded at run time when MQTT is configured, never linked.
///
/// libmosquitto needs OpenSSL, and the two cost about 2 MiB of resident memory as soon
/// as they are mapped; a daemon without MQTT should not pay that. So `CMosquitto` opens
/// the library with `dlopen` on the first ``load(soname:)`` and forwards the
/// `mosquitto_*` calls to it.
package enum MosquittoLibrary {
    /// The library's soname: libmosquitto 1.6 and 2.x (Debian's `libmosquitto1`).
    package static let soname = "libmosquitto.so.1"

    /// Loads the library, once for the process; a call after a success only checks that
    /// `soname` opens.
    ///
    /// - Throws: `LocationError.unavailable` (exit status 69) when it cannot be loaded.
    package static func load(soname: String = soname) throws(LocationError) {
        var reason = [CChar](repeating: 0, count: 512)
        guard locationd_mosquitto_load(soname, &reason, reason.count) == 0 else {
            let detail = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw .unavailable(
                "MQTT is configured but libmosquitto cannot be loaded (\(detail)): install libmosquitto1, or turn MQTT off."
            )
        }
    }
}
