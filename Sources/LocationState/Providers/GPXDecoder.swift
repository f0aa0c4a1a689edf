import Foundation

/// Decodes a GPX 1.1 document, streamed in chunks, into fixes: one per `trkpt`, `rtept` or `wpt`.
///
/// A small scanner, not a full XML parser: it reads `lat`/`lon` attributes and the
/// `ele`, `time`, `fix`, `sat`, `hdop`, `vdop`, `speed` and `course` children (also
/// inside `extensions`, whatever their namespace prefix). A point without a valid
/// position is malformed; `fix` `none` makes it a `.noFix`. Tags and texts are
/// bounded, so memory stays small whatever the input. Units: `ele` metres
/// (taken as above mean sea level, as GPX defines), `speed` m/s, `course` degrees.
public struct GPXDecoder: ReplayDecoding {
    /// The longest tag or text kept, in bytes.
    static let maximumTokenLength = 4096

    public private(set) var statistics = NMEAStatistics()
    private let options: NMEAEpochAssembler.Options
    private var token: [UInt8] = []
    private var inTag = false
    private var overflow = false
    private var point: Location?
    private var element: String?
    private var sawMarkup = false

    public init(options: NMEAEpochAssembler.Options = .init()) {
        self.options = options
    }

    public mutating func decode(_ chunk: UnsafeRawBufferPointer, _ emit: (ProviderEvent) -> Void) {
        for byte in chunk {
            if inTag {
                if byte == UInt8(ascii: ">") {
                    if !overflow { tag(emit) }
                    token.removeAll(keepingCapacity: true)
                    inTag = false
                    overflow = false
                } else {
                    append(byte)
                }
            } else if byte == UInt8(ascii: "<") {
                if !overflow { text() }
                token.removeAll(keepingCapacity: true)
                inTag = true
                overflow = false
            } else {
                append(byte)
            }
        }
    }

    public mutating func finish(_ emit: (ProviderEvent) -> Void) {
        if point != nil { statistics.malformedSentences += 1 }
        point = nil
        if !sawMarkup, !token.isEmpty { statistics.droppedLines += 1 }
        token.removeAll()
    }

    private mutating func append(_ byte: UInt8) {
        guard !overflow else { return }
        if token.count >= GPXDecoder.maximumTokenLength {
            overflow = true
            statistics.droppedLines += 1
            token.removeAll(keepingCapacity: true)
        } else {
            token.append(byte)
        }
    }

    private mutating func tag(_ emit: (ProviderEvent) -> Void) {
        sawMarkup = true
        guard let first = token.first, first != UInt8(ascii: "?"), first != UInt8(ascii: "!") else { return }
        let closing = first == UInt8(ascii: "/")
        let selfClosing = token.last == UInt8(ascii: "/")
        let body = token[(closing ? 1 : 0)..<(selfClosing ? token.count - 1 : token.count)]
        let nameEnd = body.firstIndex(where: { $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) ?? body.endIndex
        var name = String(decoding: body[body.startIndex..<nameEnd], as: UTF8.self)
        if let colon = name.lastIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
        let isPoint = name == "trkpt" || name == "rtept" || name == "wpt"
        if closing {
            element = nil
            if isPoint { endPoint(emit) }
            return
        }
        if isPoint {
            if point != nil { statistics.malformedSentences += 1 }
            statistics.sentences += 1
            let attributes = String(decoding: body[nameEnd...], as: UTF8.self)
            var location = Location(source: options.source, device: options.device)
            location.lat = GPXDecoder.attribute("lat", in: attributes).flatMap(Double.init)
            location.lon = GPXDecoder.attribute("lon", in: attributes).flatMap(Double.init)
            location.mode = .twoD
            point = location
            if selfClosing { endPoint(emit) }
        } else if point != nil {
            element = selfClosing ? nil : name
        } else if name != "gpx" && name != "trk" && name != "trkseg" && name != "rte" && name != "metadata"
            && name != "name" && name != "desc" && name != "extensions" && name != "time" && name != "link"
            && name != "text" && name != "bounds" && name != "author" && name != "type"
        {
            statistics.unknownSentences += 1
        }
    }

    private mutating func text() {
        guard let element, point != nil else { return }
        let value = String(decoding: token, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        switch element {
        case "ele":
            point?.altMSL = Double(value)
            if point?.altMSL != nil, point?.mode == .twoD { point?.mode = .threeD }
        case "time": point?.time = UTCCalendar.parseISO8601(value)
        case "fix":
            switch value {
            case "none": point?.mode = .noFix
            case "2d": point?.mode = .twoD
            case "3d": point?.mode = .threeD
            case "dgps": point?.status = 2
            default: break
            }
        case "sat": point?.satellitesUsed = Int(value)
        case "hdop": point?.hdop = Double(value)
        case "vdop": point?.epv = Double(value).map { $0 * 23 }
        case "speed": point?.speed = Double(value)
        case "course": point?.track = Double(value)
        default: break
        }
    }

    private mutating func endPoint(_ emit: (ProviderEvent) -> Void) {
        guard var location = point else { return }
        point = nil
        element = nil
        if location.mode == .noFix {
            emit(.noFix(location.time))
            return
        }
        guard let lat = location.lat, let lon = location.lon, abs(lat) <= 90, abs(lon) <= 180 else {
            statistics.malformedSentences += 1
            return
        }
        if location.mode == .twoD { location.altMSL = nil }
        if let hdop = location.hdop { location.eph = hdop * 19 }
        statistics.fixes += 1
        emit(.fix(location))
    }

    /// The value of `name="..."` (or single quotes) in a tag's attribute text.
    static func attribute(_ name: String, in attributes: String) -> String? {
        var search = attributes[...]
        while let range = search.range(of: name) {
            let before =
                range.lowerBound == attributes.startIndex ? " " : attributes[attributes.index(before: range.lowerBound)]
            var rest = attributes[range.upperBound...].drop(while: { $0 == " " })
            if before.isWhitespace, rest.first == "=" {
                rest = rest.dropFirst().drop(while: { $0 == " " })
                if let quote = rest.first, quote == "\"" || quote == "'" {
                    let value = rest.dropFirst()
                    if let end = value.firstIndex(of: quote) { return String(value[..<end]) }
                }
            }
            search = attributes[range.upperBound...]
        }
        return nil
    }
}
