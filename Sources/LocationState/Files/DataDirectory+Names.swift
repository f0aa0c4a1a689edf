extension DataDirectory {
    /// What locationd keeps in its data directory, by name: the one place that spells them.
    public enum Name {
        /// The key of the stored last fix (`LastFixStore`), a `PersistentState`.
        public static let lastFixKey = "lastFix"
        /// The stored last fix: `lastFix.json`.
        public static let lastFix = storeFile(forKey: lastFixKey)
        /// The key of the stored region membership (`RegionMonitor`), a `PersistentState`.
        public static let regionMembershipKey = "regionMembership"
        /// The stored region membership: `regionMembership.json`.
        public static let regionMembership = storeFile(forKey: regionMembershipKey)
        /// The tile log (`TileDatabase`).
        public static let tiles = "tiles.sqlite"
        /// The MQTT outbox (`MQTTOutbox`).
        public static let mqttOutbox = "mqtt-outbox.sqlite"
        /// The fixes waiting for the uplinks, with each target's cursor (`UplinkOutbox`).
        public static let uplinkOutbox = "uplink-outbox.sqlite"
        /// The timeline: stays, trips and the motion tracker's state (`TimelineStore`).
        public static let timeline = "timeline.sqlite"
        /// The folder of recorded tracks, one NMEA file a day (`TrackRecorder`).
        public static let tracks = "tracks"
        /// The daemon's control socket, unless `--socket` names another.
        public static let controlSocket = "control.sock"
        /// The lock a running daemon holds, so that a second one refuses to start.
        public static let daemonLock = "locationd.lock"
        /// The HTTP server's own bearer token, kept by a daemon whose socket a group shares.
        public static let httpToken = "http.token"

        /// The file that ``AtomicFileStore`` keeps `key` in: `KEY.json`.
        public static func storeFile(forKey key: String) -> String { key + ".json" }
    }
}
