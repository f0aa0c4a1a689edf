extension HTTPRoutes {
    /// `/api/v1/tracks`: the recorded days, oldest first.
    struct TrackDays: Encodable {
        struct Day: Encodable {
            /// `YYYY-MM-DD`.
            let day: String
            /// The day's GPX path.
            let gpx: String
            /// The size of the day's NMEA file.
            let bytes: Int
        }

        let days: [Day]
    }
}
