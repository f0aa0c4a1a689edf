import CMosquitto
import Dispatch
import Foundation

/// What libmosquitto's callbacks do, on ``queue``.
extension MQTTPublisher {
    func didConnect(_ rc: Int32) {
        guard rc == 0 else {
            connectionFailed("the broker refused the connection: \(String(cString: mosquitto_connack_string(rc)))")
            return
        }
        connected = true
        let where_ = "\(configuration.host ?? "?"):\(configuration.port)"
        if outageReported {
            logger.notice("MQTT broker \(where_) connected again; sending \(outbox.count) queued messages")
        } else {
            logger.info("MQTT broker \(where_) connected; publishing to \(locationTopic)")
        }
        outageReported = false
        updateSnapshot()
        pump()
    }

    func didDisconnect(_ rc: Int32) {
        guard rc != 0 else { return }  // our own mosquitto_disconnect
        connectionFailed(
            connected
                ? "the connection was lost"
                : "the broker closed the connection before accepting it (is it an MQTT broker, does it take this client?)"
        )
    }

    func connectionFailed(_ reason: String) {
        connected = false
        steady.withLock { $0 = false }
        storeDirectOrCountLost()
        inFlight.removeAll()
        lastHandedOver = nil
        updateSnapshot()
        guard !outageReported else { return }
        outageReported = true
        logger.warning(
            "MQTT broker \(configuration.host ?? "?"):\(configuration.port): \(reason); retrying with backoff, keeping messages in the outbox"
        )
    }

    func didAcknowledge(_ mid: Int32) {
        if let index = direct.firstIndex(where: { $0.mid == mid }) {
            direct.remove(at: index)
            updateSnapshot()
            if direct.isEmpty && !drained.isEmpty { pump() }
            return
        }
        guard let row = inFlight.removeValue(forKey: mid) else { return }
        acknowledged.append(row)
        // The acknowledged rows go in one transaction a second (sooner for a large batch
        // or a waiting drain): at 10 Hz that is one write for ten PUBACKs, not ten. Rows
        // acknowledged but not yet removed when the daemon is killed are sent again at
        // the next start, which QoS 1 allows (at least once).
        if acknowledged.count >= Self.removalBatch || !drained.isEmpty {
            removeAcknowledged()
        } else {
            if !removalScheduled {
                removalScheduled = true
                queue.asyncAfter(deadline: .now() + Self.removalDelay) { self.removeAcknowledged() }
            }
            pump()
        }
    }

    /// Acknowledged rows removed together, at most; and the longest they wait for removal.
    private static let removalBatch = 1000
    private static let removalDelay = DispatchTimeInterval.seconds(1)

    /// Removes the acknowledged rows; when that fails (a full disk) they stay listed and
    /// are removed on a later try (sent again first after a reconnection: QoS 1 allows it).
    func removeAcknowledged() {
        removalScheduled = false
        guard !acknowledged.isEmpty else { return pump() }
        do {
            try outbox.remove(acknowledged)
            acknowledged.removeAll()
        } catch {
            storageFailed(error)
        }
        updateSnapshot()
        pump()
    }
}
