import CMosquitto
import Dispatch
import Foundation
import LocationStores

/// What libmosquitto's callbacks do, on ``queue``.
extension MQTTPublisher {
    package func didConnect(_ rc: Int32) {
        guard rc == 0 else {
            connectionFailed("the broker refused the connection: \(String(cString: mosquitto_connack_string(rc)))")
            return
        }
        connected = true
        connections += 1
        if outageReported {
            // The outage ends when this connection proves itself, not at its CONNACK: a
            // broker that accepts and hangs up at once stays one outage, one line.
            let number = connections
            queue.asyncAfter(deadline: .now() + .seconds(Int(Self.stableConnection.components.seconds))) {
                if self.connected && self.connections == number { self.connectionProven() }
            }
        } else {
            let ownTracks = configuration.publishesOwnTracks ? " and \(topics.ownTracks)" : ""
            logger.info("MQTT broker \(brokerAddress) connected; publishing under \(topics.locationd)\(ownTracks)")
        }
        updateSnapshot()
        pump()
    }

    /// The broker's address, as log lines name it.
    package var brokerAddress: String { "\(configuration.host ?? "?"):\(configuration.port)" }

    /// The current connection got a PUBACK or lived ``stableConnection``: the backoff may
    /// start over, and an outage is over (one line).
    package func connectionProven() {
        proven.withLock { $0 = true }
        guard outageReported else { return }
        outageReported = false
        logger.notice("MQTT broker \(brokerAddress) connected again; sending \(outbox.count) queued messages")
    }

    package func didDisconnect(_ rc: Int32) {
        guard rc != 0 else { return }  // our own mosquitto_disconnect
        connectionFailed(
            connected
                ? "the connection was lost"
                : "the broker closed the connection before accepting it (is it an MQTT broker, does it take this client?)"
        )
    }

    package func connectionFailed(_ reason: String) {
        let wasConnected = connected
        // Stored while still connected, the messages sent directly count as in flight,
        // so that a refused one counts towards its losses (`suspectLoss`).
        storeDirectOrCountLost()
        connected = false
        if wasConnected { suspectLoss() }
        clearStall()
        steady.withLock { $0 = false }
        inFlight.removeAll()
        lastHandedOver = nil
        updateSnapshot()
        guard !outageReported else { return }
        outageReported = true
        logger.warning(
            "MQTT broker \(brokerAddress): \(reason); retrying with backoff, keeping messages in the outbox")
    }

    package func didAcknowledge(_ mid: Int32) {
        if !proven.withLock({ $0 }) { connectionProven() }
        noteAcknowledged()
        if let index = direct.firstIndex(where: { $0.mid == mid }) {
            direct.remove(at: index)
            updateSnapshot()
            if direct.isEmpty && !drained.isEmpty { pump() }
            return
        }
        guard let row = inFlight.removeValue(forKey: mid) else { return }
        acknowledged.append(row)
        // Resent in order, one at a time: every suspect up to this one got through or is gone.
        if !suspects.isEmpty { suspects = suspects.filter { $0.key > row } }
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
    package func removeAcknowledged() {
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
