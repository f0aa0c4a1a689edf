import Foundation
import LocationState
import LocationStores
import LocationTimeline

extension ControlResponder {
    /// The daemon's answers: from its current fix, its status, the fixes counted and
    /// the last fix store (for `?LAST;` when nothing is current), the region
    /// monitoring when there is one (`?REGIONS;`, REGION lines on `?WATCH;`), the tile
    /// log in the data directory (`?TILES;`, `?TILESTATS;`), the timeline recorder
    /// (`?TIMELINE`), the recorded tracks (`?TRACK`) and the HTTP server's address and
    /// token (`?PAGE;`: whoever may ask the socket may read the location over HTTP too).
    init(context: DaemonContext) {
        let (deviceLocation, counter, lastFix, regions, queue) = (
            context.deviceLocation, context.counter, context.lastFix, context.regions, context.watchers
        )
        let dataDirectory = URL(fileURLWithPath: context.configuration.dataDirectory, isDirectory: true)
        self.init(
            last: {
                ControlAnswers.ShownFix(current: deviceLocation.value, lastKnown: counter.lastKnown ?? lastFix.lastFix)
            },
            status: { context.statusAnswer(context.status.value) },
            watch: { send in
                // The current fix first, as a new watcher wants to know where the
                // device is now; before any fix there is nothing to say yet.
                // One serial queue for both kinds of line (the watchers' queue): a region
                // event is made after its fix is in deviceLocation, so its line comes
                // after that fix's TPV line (a burst of fixes may put later TPV lines before it).
                let observation = deviceLocation.observe(on: queue, policy: .all, sendingCurrentValue: true) { change in
                    if change.old == nil, change.new == nil { return }
                    send(ControlAnswers.watchLine(change.new))
                }
                let events = regions?.monitor.events.observe(on: queue, policy: .all) { change in
                    for event in change.new { send(event.jsonString) }
                }
                return {
                    observation.cancel()
                    events?.cancel()
                }
            },
            regions: regions.map(Self.regionsAnswer),
            tiles: { zoom in
                do throws(LocationError) {
                    return .tiles(try TileDatabase.daemons(in: dataDirectory), zoom: zoom)
                } catch {
                    return .line(ControlReply.error(error.message))
                }
            },
            tileStatistics: { zoom in
                do throws(LocationError) {
                    guard let database = try TileDatabase.daemons(in: dataDirectory) else {
                        return ControlAnswers.tileStatistics(TileStatistics(zooms: []))
                    }
                    return ControlAnswers.tileStatistics(try TileStatistics.read(database, zoom: zoom))
                } catch {
                    return ControlReply.error(error.message)
                }
            },
            timeline: context.timeline.map(Self.timelineAnswer),
            track: { [tracks = context.configuration.tracksDirectory, days = context.configuration.days] request in
                do throws(TrackExport.Failure) {
                    switch request {
                    case .day(let day): return .track(try TrackExport.day(day, in: tracks, days: days))
                    case .range(let from, let to):
                        return .track(try TrackExport.range(from: from, to: to, in: tracks, maxDays: nil, days: days))
                    }
                } catch {
                    return .line(ControlReply.error(error.message))
                }
            },
            odometer: context.timeline.map(Self.odometerAnswer),
            places: context.timeline.map { Self.placesAnswer($0, days: context.configuration.days) },
            days: context.configuration.days,
            page: {
                guard context.configuration.http.enabled else { return ControlAnswers.page(url: nil, token: nil) }
                return ControlAnswers.page(
                    url: context.httpURL.withLock { $0 } ?? context.configuration.http.localURL,
                    token: context.httpToken.map { String(decoding: $0, as: UTF8.self) })
            })
    }

    /// `?TIMELINE` from the daemon's recorder: the stored stays and trips and the open ones.
    private static func timelineAnswer(_ recorder: TimelineRecorder) -> @Sendable (TimelineRange) -> ControlPages {
        { range in
            do throws(LocationError) {
                return .lines(
                    ControlAnswers.timeline(
                        try recorder.boundedEntries(from: range.start, to: range.end), range: range))
            } catch {
                return .line(ControlReply.error(error.message))
            }
        }
    }

    /// `?ODOMETER` from the daemon's recorder: its store and its live tracker.
    private static func odometerAnswer(_ recorder: TimelineRecorder) -> @Sendable (OdometerAnswer.Request) -> String {
        { request in
            guard let store = recorder.store else {
                return ControlReply.error("the timeline is not stored by this daemon")
            }
            do throws(LocationError) {
                return ControlAnswers.line(try OdometerAnswer.answer(request, store: store, tracker: recorder.tracker))
            } catch {
                return ControlReply.error(error.message)
            }
        }
    }

    /// `?PLACES` from the daemon's recorder: its store and the stays its tracker holds open.
    private static func placesAnswer(_ recorder: TimelineRecorder, days: LocalDays)
        -> @Sendable (PlacesAnswer.Request) -> ControlPages
    {
        { request in
            do throws(LocationError) {
                return .lines(try recorder.placeLines(request, days: days))
            } catch {
                return .line(ControlReply.error(error.message))
            }
        }
    }

    /// `?REGIONS;` for the daemon's region monitoring.
    private static func regionsAnswer(_ regions: RegionMonitoring) -> @Sendable () -> String {
        {
            ControlAnswers.regions(
                file: regions.path, count: regions.monitor.regions.count, membership: regions.monitor.current)
        }
    }
}
