import CMosquitto
import Dispatch
import Foundation

/// What the publisher does when a message cannot get through: libmosquitto refuses it
/// (dropped, counted, one line), or the broker stops acknowledging (one line and
/// `stalled` in `?STATUS;` until a PUBACK comes). On ``queue``.
extension MQTTPublisher {
    /// Whether libmosquitto refused a message for what it is (its topic or payload), so
    /// that sending it again can never work, rather than for the connection.
    package static func refusesForGood(_ rc: Int32) -> Bool {
        [MOSQ_ERR_INVAL, MOSQ_ERR_PAYLOAD_SIZE, MOSQ_ERR_MALFORMED_UTF8, MOSQ_ERR_OVERSIZE_PACKET]
            .map(\.rawValue).contains(rc)
    }

    /// Drops a stored message libmosquitto will never send, so that it does not hold up
    /// the ones after it; the first of an episode is logged, every one counted in `dropped`.
    package func refuse(_ message: MQTTOutbox.Message, _ rc: Int32) {
        refused += 1
        acknowledged.append(message.id)
        lastHandedOver = message.id
        if !removalScheduled {
            removalScheduled = true
            queue.asyncAfter(deadline: .now() + .seconds(1)) { self.removeAcknowledged() }
        }
        if refused == 1 || refused.isMultiple(of: 1000) {
            logger.error(
                "MQTT: cannot send a message to \(message.topic.prefix(80).escapedForTerminal)… (\(message.topic.utf8.count)-byte topic, \(message.payload.count)-byte payload): \(Self.describe(rc)); dropped (\(refused) so far, counted in ?STATUS;'s dropped)"
            )
        }
        updateSnapshot()
    }

    /// A message was handed to libmosquitto: when none was waiting for its PUBACK, the
    /// broker's time to acknowledge starts now.
    package func noteHandedOver() {
        if unacknowledged == 0 { lastProgress = DispatchTime.now().uptimeNanoseconds }
        scheduleStallCheck()
    }

    /// A PUBACK came: the broker is acknowledging (again).
    package func noteAcknowledged() {
        lastProgress = DispatchTime.now().uptimeNanoseconds
        guard stalled else { return }
        stalled = false
        logger.notice("MQTT broker \(brokerAddress) acknowledges again")
        updateSnapshot()
    }

    /// The connection ended: a stall ends with it (the outage is logged instead).
    package func clearStall() {
        stalled = false
    }

    private func scheduleStallCheck() {
        guard !stallCheckScheduled, !stalled else { return }
        stallCheckScheduled = true
        queue.asyncAfter(deadline: DispatchTime(uptimeNanoseconds: lastProgress + acknowledgementTimeout)) {
            self.checkStall()
        }
    }

    private func checkStall() {
        stallCheckScheduled = false
        guard connected, unacknowledged > 0, !stalled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now >= lastProgress + acknowledgementTimeout else { return scheduleStallCheck() }
        stalled = true
        logger.warning(
            "MQTT broker \(brokerAddress): no PUBACK for \((now - lastProgress) / 1_000_000_000) s while \(unacknowledged) messages wait; it may be refusing them (a topic or message too long, an ACL); they stay in the outbox"
        )
        updateSnapshot()
    }

    /// A connection ended while messages were in flight: the oldest message that was in
    /// flight, unacknowledged, when each of the last three connections ended is taken to
    /// be why the broker drops the client (MQTT 3.1.1's way to refuse one); it is dropped,
    /// counted and logged, so that it no longer blocks every message after it, and the
    /// count starts over.
    ///
    /// After the first loss the messages go one at a time (``inFlightLimit``) until the
    /// suspects are through: a broker that closes with unread bytes resets the
    /// connection, and the PUBACK it sent just before for the message ahead of the
    /// refused one is lost with the reset, so that, sent together, an innocent message
    /// would be the oldest unacknowledged at every loss and be dropped instead.
    package func suspectLoss() {
        let ids = Set(inFlight.values)
        guard !ids.isEmpty else { return }
        suspects = ids.reduce(into: [:]) { counts, id in counts[id] = (suspects[id] ?? 0) + 1 }
        guard let oldest = suspects.filter({ $0.value >= Self.lossesBeforeDropping }).keys.min() else { return }
        let losses = suspects[oldest] ?? Self.lossesBeforeDropping
        suspects = [:]
        let message = try? outbox.messages(after: oldest - 1, limit: 1, fromFile: true).first
        refused += 1
        inFlight = inFlight.filter { $0.value != oldest }
        acknowledged.append(oldest)
        logger.error(
            "MQTT broker \(brokerAddress) ended the connection \(losses) times in a row while a message to \(message.map { $0.topic.prefix(80).escapedForTerminal + "…" } ?? "?") (\(message?.payload.count ?? 0) bytes) waited for its PUBACK; dropped it (counted in ?STATUS;'s dropped): does the broker refuse its topic or size?"
        )
        removeAcknowledged()
    }
}
