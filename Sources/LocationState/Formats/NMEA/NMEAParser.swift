/// Parses one NMEA 0183 line into a ``NMEASentence``, working on the line's bytes.
///
/// A line may carry garbage before the sentence (a receiver's binary noise); the
/// sentence starts at the last `$` or `!`. The checksum, when present (`*hh`), must
/// match; a sentence without one is accepted, as gpsd does, but only if it has at
/// least the fields its type needs. Proprietary (`$P...`) and other sentence types
/// are ``Result/unknown``; any byte outside printable ASCII makes the line
/// ``Result/notNMEA``.
public enum NMEAParser {
    /// What one line turned out to be.
    public enum Result: Sendable, Hashable {
        /// A sentence of a type locationd decodes.
        case sentence(NMEASentence)
        /// A well-formed sentence of a type locationd does not decode (proprietary, AIS, depth...).
        case unknown
        /// The `*hh` checksum does not match the sentence, or is not two hex digits.
        case badChecksum
        /// A known type with too few fields to decode.
        case malformed
        /// No sentence at all: no `$`, or bytes that cannot be in NMEA.
        case notNMEA
    }

    /// Parses a line given as a String (tests, tools).
    public static func parse(_ line: String) -> Result {
        var line = line
        return line.withUTF8 { parse($0) }
    }

    /// The sentence types locationd decodes.
    package enum SentenceType {
        case gga, rmc, gll, gsa, gsv, vtg, gns, zda, gst, gbs, dbt
    }

    /// One line read as far as its fields: small, so that it is cheap to return.
    package enum Line {
        /// A sentence of a type locationd decodes, with at least the fields that type needs:
        /// `count` is how many count (see ``NMEAParser``'s rule for a missing checksum).
        case fields(NMEAFields, SentenceType, NMEATalker, count: Int)
        /// ``Result/unknown``: AIS (`!`), which gpsd does not take into its NMEA cycle.
        case unknown
        /// ``Result/unknown``: a `$` sentence locationd does not decode, which still takes its
        /// place in gpsd's reporting cycle; `setsData` when gpsd decodes it into something it
        /// reports (heading, wind: HDG, HDT, MWD, MWV).
        case undecoded(setsData: Bool)
        /// ``Result/badChecksum``.
        case badChecksum
        /// ``Result/malformed``.
        case malformed
        /// ``Result/notNMEA``.
        case notNMEA
    }

    /// Parses one line, without its line terminator (trailing CR and spaces are ignored).
    public static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result {
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * NMEAFields.capacity) { bounds in
            switch read(line, bounds: bounds) {
            case .fields(let fields, let type, let talker, let count):
                guard let body = body(type, fields, count: count) else { return .malformed }
                return .sentence(NMEASentence(talker: talker, body: body))
            case .unknown, .undecoded: return .unknown
            case .badChecksum: return .badChecksum
            case .malformed: return .malformed
            case .notNMEA: return .notNMEA
            }
        }
    }

    /// Reads one line as far as its fields, with `bounds` (capacity `2 * NMEAFields.capacity`)
    /// as room for the field offsets, so that a caller reading many lines allocates it once.
    ///
    /// Reads the line eight bytes at a time (``ByteWord``) in one pass forward from its first
    /// `$` or `!`: finds the `*`, checks the bytes, sums them and notes the field boundaries,
    /// and starts over at each later `$` or `!`, so that the sentence is the one after the last.
    package static func read(_ line: UnsafeBufferPointer<UInt8>, bounds: UnsafeMutableBufferPointer<Int32>) -> Line {
        // Field offsets are Int32; no line comes near that (the decoder keeps at most 512 bytes).
        precondition(line.count <= Int32.max, "line too long")
        var end = line.count
        while end > 0, line[end - 1] == 13 || line[end - 1] == 10 || line[end - 1] == 32 { end -= 1 }
        guard var start = firstMark(line, end: end) else { return .notNMEA }
        var sum: UInt64
        var bodyEnd: Int
        var count: Int
        var fieldStart: Int
        scan: while true {
            sum = 0
            bodyEnd = end
            count = 0
            fieldStart = start + 1
            var position = start + 1
            while position < end {
                let word = ByteWord(line, at: position, end: end)
                var body = word.valid
                let stars = word.matching(UInt8(ascii: "*"))
                if stars != 0 {
                    let index = stars.trailingZeroBitCount / 8
                    body &= ByteWord.firstBytes(index)
                    bodyEnd = position + index
                }
                let marks = (word.matching(UInt8(ascii: "$")) | word.matching(UInt8(ascii: "!"))) & body
                if marks != 0 {
                    start = position + (63 - marks.leadingZeroBitCount) / 8
                    continue scan
                }
                if word.unprintable & body != 0 {
                    // Binary noise: only a later `$` or `!` can start a sentence.
                    guard let later = lastMark(line, from: position, end: end) else { return .notNMEA }
                    start = later
                    continue scan
                }
                sum ^= word.bits & body
                var commas = word.matching(UInt8(ascii: ",")) & body
                while commas != 0, count < NMEAFields.capacity {
                    let comma = position &+ commas.trailingZeroBitCount &>> 3
                    bounds[2 &* count] = Int32(truncatingIfNeeded: fieldStart &- start &- 1)
                    bounds[2 &* count &+ 1] = Int32(truncatingIfNeeded: comma &- start &- 1)
                    count &+= 1
                    fieldStart = comma &+ 1
                    commas &= commas &- 1
                }
                if stars != 0 { break }
                position += 8
            }
            // A `$` or `!` after the `*` starts the sentence over, too (there are two bytes, as a rule).
            var after = end
            while after > bodyEnd + 1 {
                after -= 1
                if line[after] == UInt8(ascii: "$") || line[after] == UInt8(ascii: "!") {
                    start = after
                    continue scan
                }
            }
            break
        }
        let bodyStart = start + 1
        let hasChecksum = bodyEnd < end
        if hasChecksum {
            sum ^= sum >> 32
            sum ^= sum >> 16
            sum ^= sum >> 8
            guard end - bodyEnd == 3, let high = NMEAChecksum.hexValue(line[bodyEnd + 1]),
                let low = NMEAChecksum.hexValue(line[bodyEnd + 2])
            else { return .badChecksum }
            guard high << 4 | low == UInt8(truncatingIfNeeded: sum) else { return .badChecksum }
        }
        if line[start] == UInt8(ascii: "!") { return .unknown }
        if count < NMEAFields.capacity {
            bounds[2 * count] = Int32(truncatingIfNeeded: fieldStart &- bodyStart)
            bounds[2 * count + 1] = Int32(truncatingIfNeeded: bodyEnd &- bodyStart)
            count += 1
        }
        let body = UnsafeBufferPointer(rebasing: line[bodyStart..<bodyEnd])
        return classify(NMEAFields(bytes: body, bounds: bounds, count: count), hasChecksum: hasChecksum)
    }

    /// The offset of the first `$` or `!` before `end`, nil when there is none.
    private static func firstMark(_ line: UnsafeBufferPointer<UInt8>, end: Int) -> Int? {
        guard end > 0 else { return nil }
        if line[0] == UInt8(ascii: "$") || line[0] == UInt8(ascii: "!") { return 0 }
        var position = 0
        while position < end {
            let word = ByteWord(line, at: position, end: end)
            let marks = word.matching(UInt8(ascii: "$")) | word.matching(UInt8(ascii: "!"))
            if marks != 0 { return position + marks.trailingZeroBitCount / 8 }
            position += 8
        }
        return nil
    }

    /// The offset of the last `$` or `!` in `start..<end`, nil when there is none.
    private static func lastMark(_ line: UnsafeBufferPointer<UInt8>, from start: Int, end: Int) -> Int? {
        var mark: Int?
        var position = start
        while position < end {
            let word = ByteWord(line, at: position, end: end)
            let marks = word.matching(UInt8(ascii: "$")) | word.matching(UInt8(ascii: "!"))
            if marks != 0 { mark = position + (63 - marks.leadingZeroBitCount) / 8 }
            position += 8
        }
        return mark
    }

    /// The sentence type of `fields` and how many of them count, if locationd decodes that
    /// type and the sentence has the fields it needs.
    private static func classify(_ fields: NMEAFields, hasChecksum: Bool) -> Line {
        let tag = fields.range(0)
        guard tag.count == 5 else { return .undecoded(setsData: false) }
        let bytes = fields.bytes
        let first = bytes[tag.lowerBound]
        guard first != UInt8(ascii: "P") else { return .undecoded(setsData: false) }
        let talker = NMEATalker(first: first, second: bytes[tag.lowerBound + 1])
        let code =
            (UInt32(bytes[tag.lowerBound + 2]) << 16) | (UInt32(bytes[tag.lowerBound + 3]) << 8)
            | UInt32(bytes[tag.lowerBound + 4])
        // A sentence without a checksum has no terminator after its last field; gpsd does not count that field.
        let count = hasChecksum ? fields.count : fields.count - 1
        let type: SentenceType
        let minimum: Int
        switch code {
        case tag3("GGA"): (type, minimum) = (.gga, 13)
        case tag3("RMC"): (type, minimum) = (.rmc, 8)
        case tag3("GLL"): (type, minimum) = (.gll, 7)
        case tag3("GSA"): (type, minimum) = (.gsa, 18)
        case tag3("GSV"): (type, minimum) = (.gsv, 4)
        case tag3("VTG"): (type, minimum) = (.vtg, 5)
        case tag3("GNS"): (type, minimum) = (.gns, 13)
        case tag3("ZDA"): (type, minimum) = (.zda, 4)
        case tag3("GST"): (type, minimum) = (.gst, 8)
        case tag3("GBS"): (type, minimum) = (.gbs, 7)
        case tag3("DBT"): (type, minimum) = (.dbt, 7)
        case tag3("HDG"), tag3("HDT"), tag3("MWD"), tag3("MWV"): return .undecoded(setsData: true)
        default: return .undecoded(setsData: false)
        }
        guard count >= minimum else { return .malformed }
        return .fields(fields, type, talker, count: count)
    }

    /// The body of a sentence of `type`; nil when its fields do not fit the type (a GSV
    /// whose field count is not a whole number of satellites).
    package static func body(_ type: SentenceType, _ fields: NMEAFields, count: Int) -> NMEASentence.Body? {
        switch type {
        case .gga: .gga(gga(fields))
        case .rmc: .rmc(rmc(fields))
        case .gll: .gll(gll(fields))
        case .gsa: .gsa(gsa(fields, count: count))
        case .gsv: gsv(fields, count: count).map { .gsv($0) }
        case .vtg: .vtg(vtg(fields))
        case .gns: .gns(gns(fields))
        case .zda: .zda(zda(fields))
        case .gst: .gst(gst(fields))
        case .gbs: .gbs(gbs(fields))
        case .dbt: .dbt(NMEASentence.DBT())
        }
    }

    private static func tag3(_ name: StaticString) -> UInt32 {
        let pointer = name.utf8Start
        return (UInt32(pointer[0]) << 16) | (UInt32(pointer[1]) << 8) | UInt32(pointer[2])
    }

    package static func gga(_ f: NMEAFields) -> NMEASentence.GGA {
        NMEASentence.GGA(
            timeOfDay: f.timeOfDay(1), latitude: f.latitude(2), longitude: f.longitude(4), quality: f.integer(6),
            satellitesUsed: f.integer(7), hdop: f.number(8), altitudeMSL: f.number(9),
            geoidSeparation: f.number(11))
    }

    package static func rmc(_ f: NMEAFields) -> NMEASentence.RMC {
        var variation = f.number(10)
        if let value = variation {
            switch f.character(11) {
            case UInt8(ascii: "E"): variation = value
            case UInt8(ascii: "W"): variation = -value
            default: variation = nil
            }
        }
        return NMEASentence.RMC(
            timeOfDay: f.timeOfDay(1), status: f.character(2), latitude: f.latitude(3), longitude: f.longitude(5),
            speedKnots: f.number(7), track: f.number(8), date: f.date(9), magneticVariation: variation,
            faaMode: f.character(12))
    }

    package static func gll(_ f: NMEAFields) -> NMEASentence.GLL {
        NMEASentence.GLL(
            latitude: f.latitude(1), longitude: f.longitude(3), timeOfDay: f.timeOfDay(5), status: f.character(6),
            faaMode: f.character(7))
    }

    package static func gsa(_ f: NMEAFields, count: Int) -> NMEASentence.GSA {
        // 12 satellite slots normally (fields 3...14, DOPs 15...17, NMEA 4.1 system ID 18);
        // longer variants (Navior-24: 24 slots) put the three DOPs right after the slots.
        let dopStart = count <= 19 ? 15 : count - 3
        var satellites: [Int] = []
        for index in 3..<dopStart {
            if let id = f.integer(index), id > 0 { satellites.append(id) }
        }
        return NMEASentence.GSA(
            selection: f.character(1), fixType: f.integer(2), satellites: satellites, pdop: f.number(dopStart),
            hdop: f.number(dopStart + 1), vdop: f.number(dopStart + 2))
    }

    package static func gsv(_ f: NMEAFields, count: Int) -> NMEASentence.GSV? {
        let end: Int
        switch count % 4 {
        case 0: end = count
        case 1: end = count - 1  // NMEA 4.1 signal ID last
        default: return nil
        }
        var satellites: [NMEASentence.GSV.Satellite] = []
        var index = 4
        while index + 3 < end {
            if let id = f.integer(index), id > 0 {
                satellites.append(
                    .init(
                        id: id, elevation: f.integer(index + 1), azimuth: f.integer(index + 2),
                        snr: f.integer(index + 3)))
            }
            index += 4
        }
        return NMEASentence.GSV(
            sentenceCount: f.integer(1), sentenceIndex: f.integer(2), satellitesInView: f.integer(3),
            satellites: satellites)
    }

    package static func vtg(_ f: NMEAFields) -> NMEASentence.VTG {
        NMEASentence.VTG(
            track: f.number(1), magneticTrack: f.number(3), speedKnots: f.number(5),
            speedKilometersPerHour: f.number(7), faaMode: f.character(9))
    }

    package static func gns(_ f: NMEAFields) -> NMEASentence.GNS {
        NMEASentence.GNS(
            timeOfDay: f.timeOfDay(1), latitude: f.latitude(2), longitude: f.longitude(4), mode: f.character(6),
            satellitesUsed: f.integer(7), hdop: f.number(8), altitudeMSL: f.number(9), geoidSeparation: f.number(10),
            navigationalStatus: f.character(13))
    }

    package static func zda(_ f: NMEAFields) -> NMEASentence.ZDA {
        var date: NMEADate?
        if let day = f.integer(2), let month = f.integer(3), let year = f.integer(4), f.range(4).count == 4 {
            date = NMEADate(year: year, month: month, day: day)
        }
        return NMEASentence.ZDA(timeOfDay: f.timeOfDay(1), date: date)
    }

    package static func gbs(_ f: NMEAFields) -> NMEASentence.GBS {
        NMEASentence.GBS(timeOfDay: f.timeOfDay(1))
    }

    package static func gst(_ f: NMEAFields) -> NMEASentence.GST {
        NMEASentence.GST(
            timeOfDay: f.timeOfDay(1), rms: f.number(2), semiMajor: f.number(3), semiMinor: f.number(4),
            orientation: f.number(5), latitudeError: f.number(6), longitudeError: f.number(7),
            altitudeError: f.number(8))
    }
}
