import CMosquitto
import Dispatch
import Foundation
import LocationState

/// Sending: straight to the broker while it keeps up, else through the outbox. On ``queue``.
extension MQTTPublisher {
    /// Appends a message to the outbox and sends what can go.
    ///
    /// When the outbox cannot be written (a full disk), a message that cannot be stored
    /// is published at once if the broker is connected and nothing waits before it
    /// (order is kept; it is lost if the connection drops before its PUBACK); otherwise
    /// it is dropped and counted. Messages already stored are kept and sent as usual.
    package func enqueue(topic: String, payload: [UInt8], retain: Bool, at now: Date = Date()) {
        let entry = MQTTOutbox.Entry(topic: topic, payload: payload, retain: retain, createdAt: now)
        if sendDirectly(entry) { return }
        do {
            try storeDirect(at: now)  // they go before this one
            try outbox.append(contentsOf: [entry], at: now)
        } catch {
            storageFailed(error)
            if connected, outbox.count == 0, let client {
                _ = payload.withUnsafeBytes { bytes in
                    mosquitto_publish(client, nil, topic, Int32(bytes.count), bytes.baseAddress, 1, retain)
                }
                wakeLoopIfQueued(client)
            } else {
                unstored += 1
            }
            updateSnapshot()
            return
        }
        storageRecovered()
        updateSnapshot()
        pump()
    }

    /// Sends `entry` without storing it, when the broker is connected, has acknowledged
    /// every stored message and has room in flight; returns false, having done nothing,
    /// otherwise (see the type's notes).
    private func sendDirectly(_ entry: MQTTOutbox.Entry) -> Bool {
        guard connected, let client, outbox.count == acknowledged.count, unacknowledged < inFlightLimit
        else { return false }
        var mid: Int32 = 0
        let rc = entry.payload.withUnsafeBytes { bytes in
            mosquitto_publish(client, &mid, entry.topic, Int32(bytes.count), bytes.baseAddress, 1, entry.retain)
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return false }
        noteHandedOver()
        direct.append(Direct(mid: mid, entry: entry, sentAt: DispatchTime.now().uptimeNanoseconds))
        wakeLoopIfQueued(client)
        updateSteady(handedAll: true)
        scheduleStoreCheck()
        updateSnapshot()
        return true
    }

    /// Stores the messages sent directly and not yet acknowledged, in one transaction,
    /// after every stored message; while connected they stay in flight as stored ones.
    /// When the outbox cannot be written, throws and keeps them in memory.
    private func storeDirect(at now: Date = Date()) throws(LocationError) {
        guard !direct.isEmpty else { return }
        let ids = try outbox.append(contentsOf: direct.map(\.entry), at: now)
        if connected {
            for (message, id) in zip(direct, ids) { inFlight[message.mid] = id }
            // Every stored message before them was acknowledged, so all are handed over.
            lastHandedOver = ids.last
        }
        direct.removeAll()
    }

    /// When the connection is gone: what was sent directly and not acknowledged goes to
    /// the outbox, to be sent again; what cannot be stored (a full disk) is counted lost.
    package func storeDirectOrCountLost() {
        do {
            try storeDirect()
        } catch {
            storageFailed(error)
            unstored += direct.count
            direct.removeAll()
        }
    }

    /// Stores the direct messages once the oldest has waited ``storeDelay`` for its PUBACK.
    private func scheduleStoreCheck(notBefore: UInt64 = 0) {
        guard !storeCheckScheduled, let oldest = direct.first else { return }
        storeCheckScheduled = true
        let deadline = DispatchTime(uptimeNanoseconds: max(oldest.sentAt + Self.storeDelay, notBefore))
        queue.asyncAfter(deadline: deadline) { self.storeOverdue() }
    }

    private func storeOverdue() {
        storeCheckScheduled = false
        guard let oldest = direct.first else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        if now >= oldest.sentAt + Self.storeDelay {
            // All of them, not only the overdue ones: stored messages must stay older
            // than every direct one.
            do {
                try storeDirect()
                storageRecovered()
                updateSnapshot()
            } catch {
                storageFailed(error)
                return scheduleStoreCheck(notBefore: now + Self.storeDelay)
            }
        }
        scheduleStoreCheck()
    }

    /// After a write of the outbox succeeded: ends a failing episode, with one line.
    private func storageRecovered() {
        guard storageFailing else { return }
        storageFailing = false
        logger.notice("MQTT outbox writable again; \(unstored) messages could not be kept meanwhile")
        if !acknowledged.isEmpty { removeAcknowledged() }
    }

    /// One line while writing the outbox fails, not one a fix.
    package func storageFailed(_ error: LocationError) {
        guard !storageFailing else { return }
        storageFailing = true
        logger.error(
            "MQTT outbox: \(error.message); until it can be written, new messages go straight to the broker when nothing waits, else are dropped (counted)"
        )
    }

    /// Hands the oldest messages not yet handed over to libmosquitto while connected.
    package func pump() {
        guard connected, let client else { return }
        var handedAll = false
        defer { updateSteady(handedAll: handedAll) }
        while unacknowledged < inFlightLimit {
            let batch: [MQTTOutbox.Message]
            do {
                batch = try outbox.messages(after: lastHandedOver, limit: inFlightLimit - unacknowledged)
            } catch {
                logger.error("MQTT outbox: \(error.message)")
                return
            }
            guard !batch.isEmpty else {
                handedAll = true
                break
            }
            for message in batch {
                var mid: Int32 = 0
                let rc = message.payload.withUnsafeBytes { bytes in
                    mosquitto_publish(
                        client, &mid, message.topic, Int32(bytes.count), bytes.baseAddress, 1, message.retain)
                }
                guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                    // Not connected after all: the disconnect callback follows; the messages stay queued.
                    guard Self.refusesForGood(rc) else { return }
                    refuse(message, rc)
                    continue
                }
                noteHandedOver()
                inFlight[mid] = message.id
                lastHandedOver = message.id
            }
        }
        wakeLoopIfQueued(client)
        if outbox.count == acknowledged.count && inFlight.isEmpty && direct.isEmpty {
            if !acknowledged.isEmpty && !drained.isEmpty && !storageFailing { return removeAcknowledged() }
            guard outbox.count == 0 else { return }
            for waiter in drained { waiter.resume() }
            drained.removeAll()
        }
    }

    /// Sets ``steady``: every stored message handed over (`handedAll`), few in flight,
    /// nobody draining.
    private func updateSteady(handedAll: Bool) {
        let calm = handedAll && unacknowledged < Self.maximumInFlight / 4 && drained.isEmpty
        steady.withLock { $0 = calm }
    }

    package func updateSnapshot() {
        let snapshot = Snapshot(
            connected: connected, queued: outbox.count - acknowledged.count + direct.count,
            dropped: outbox.dropped + unstored + refused, stalled: stalled)
        state.withLock { $0 = snapshot }
    }
}
