extension HTTPRoutes {
    /// `/api/v1/tiles/stats`: per zoom, the tiles, visits, largest square, first and last visit.
    struct TileStatistics: Encodable {
        struct Zoom: Encodable {
            struct Square: Encodable {
                /// Side in tiles; 0 (and no origin) when no tile was seen.
                let size: Int
                let x: Int?
                let y: Int?
            }

            let zoom: Int
            let tiles: Int
            let visits: Int
            let maxSquare: Square
            /// ISO 8601 UTC.
            let firstSeen: String
            let lastSeen: String
        }

        let zooms: [Zoom]
    }

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
