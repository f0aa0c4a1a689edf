import LocationState
import LocationStores
import LocationTimeline

/// One of the listeners that keep the device's history in the data directory, with how it
/// is closed: the tile log, the last fix, the track (`record`) and the timeline.
///
/// ``DaemonContext/historyListeners()`` is the one list of them: the daemon runs each as a
/// ``ListenerService`` on the state it follows, and `locationd replay --data-dir` hands each
/// the replayed fixes. A new one is one type and one line in that list.
struct HistoryListener: Sendable {
    /// Which of the daemon's states it follows.
    enum Follows: Sendable {
        /// Every report at once (`deviceLocation`): the last fix, which `last` must match.
        case reports
        /// One fix per receiver epoch (`epochLocation`): what records or publishes.
        case epochs
    }

    let listener: any StateListener<Location?>
    let follows: Follows
    /// Writes what it holds; once, when the daemon or the replay ends.
    let close: @Sendable () async throws(LocationError) -> Void
    /// What runs beside it while the daemon has it attached (the timeline's clock), until
    /// the returned function stops it.
    var whileAttached: (@Sendable () -> @Sendable () -> Void)?
}

extension DaemonContext {
    /// The listeners that keep the device's history, in the order the daemon starts them.
    func historyListeners() -> [HistoryListener] {
        let (tiles, lastFix, queue) = (tiles, lastFix, listeners)
        var list = [
            HistoryListener(
                listener: tiles, follows: .epochs, close: { () async throws(LocationError) in try await tiles.close() }),
            HistoryListener(
                listener: lastFix, follows: .reports, close: { () throws(LocationError) in try lastFix.flush() }),
        ]
        if configuration.record {
            let recorder = TrackRecorder(directory: configuration.tracksDirectory, logger: logger)
            list.append(
                HistoryListener(
                    listener: recorder, follows: .epochs, close: { () throws(LocationError) in try recorder.close() }))
        }
        if let timeline {
            list.append(
                HistoryListener(
                    listener: timeline, follows: .epochs, close: { () throws(LocationError) in try timeline.close() },
                    whileAttached: {
                        // Once a minute, what a long silence ends is ended.
                        let clock = Task {
                            while (try? await Task.sleep(for: .seconds(60))) != nil {
                                queue.async { timeline.expire() }
                            }
                        }
                        return { clock.cancel() }
                    }))
        }
        return list
    }
}
