import LocationState

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decodes an NMEA byte stream, chunk by chunk, into fixes: line framing, parsing and epoch assembly.
///
/// Lines end in LF, CRLF or CR. Of a line longer than ``maximumLineLength`` only its
/// last ``maximumLineLength`` bytes are kept and read, so memory stays bounded whatever
/// the input: a receiver that sends a binary protocol beside NMEA (u-blox's UBX, RTCM)
/// puts hundreds of bytes without a line end before a sentence, and gpsd, which looks
/// for a sentence's `$` wherever it is, reads that sentence. `#` lines are comments
/// (gpsd's logs start with some).
public struct NMEADecoder: Sendable {
    /// The most of a line that is read, in bytes: its end (NMEA allows 82; some receivers
    /// send longer proprietary lines).
    public static let maximumLineLength = 512

    /// Counts so far.
    public private(set) var statistics = NMEAStatistics()
    private var assembler: NMEAEpochAssembler
    /// The start of a line cut by the end of the previous chunk; of an over-long line, its
    /// last ``maximumLineLength`` bytes so far.
    private var pending: [UInt8] = []
    /// Whether the line in progress is over-long.
    private var overLong = false

    public init(options: NMEAEpochAssembler.Options = .init()) {
        assembler = NMEAEpochAssembler(options: options)
        pending.reserveCapacity(NMEADecoder.maximumLineLength)
    }

    /// Decodes the next chunk of the stream; `emit` receives each completed epoch.
    public mutating func decode(_ chunk: UnsafeRawBufferPointer, _ emit: (FixReport) -> Void) {
        guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let bytes = UnsafeBufferPointer(start: base, count: chunk.count)
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * NMEAFields.capacity) { bounds in
            decode(bytes, bounds: bounds, emit)
        }
    }

    /// ``decode(_:_:)`` with `bounds` as the parser's room for field offsets, allocated once per chunk.
    private mutating func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, bounds: UnsafeMutableBufferPointer<Int32>,
        _ emit: (FixReport) -> Void
    ) {
        let limit = NMEADecoder.maximumLineLength
        var lineStart = 0
        while lineStart < bytes.count {
            let index = NMEADecoder.terminator(in: bytes, from: lineStart)
            let length = index - lineStart + pending.count
            guard index < bytes.count else {
                // The line goes on in the next chunk: keep its start, or its end once it is over-long.
                if overLong || length > limit {
                    overLong = true
                    keepEnd(of: UnsafeBufferPointer(rebasing: bytes[lineStart..<index]))
                } else {
                    pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[lineStart..<index]))
                }
                return
            }
            if overLong || length > limit {
                overLong = false
                keepEnd(of: UnsafeBufferPointer(rebasing: bytes[lineStart..<index]))
                readPending(bounds: bounds, emit)
            } else if pending.isEmpty {
                line(UnsafeBufferPointer(rebasing: bytes[lineStart..<index]), bounds: bounds, emit)
            } else {
                pending.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[lineStart..<index]))
                readPending(bounds: bounds, emit)
            }
            lineStart = index + 1
        }
    }

    /// Keeps the last ``maximumLineLength`` bytes of `pending` followed by `part`.
    private mutating func keepEnd(of part: UnsafeBufferPointer<UInt8>) {
        let limit = NMEADecoder.maximumLineLength
        if part.count >= limit {
            pending.removeAll(keepingCapacity: true)
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: part[(part.count - limit)...]))
        } else {
            pending.append(contentsOf: part)
            if pending.count > limit { pending.removeFirst(pending.count - limit) }
        }
    }

    /// Reads `pending` as a line and empties it.
    private mutating func readPending(bounds: UnsafeMutableBufferPointer<Int32>, _ emit: (FixReport) -> Void) {
        var carried = pending
        pending = []
        carried.withUnsafeBufferPointer { line($0, bounds: bounds, emit) }
        carried.removeAll(keepingCapacity: true)
        pending = carried
    }

    /// The index of the first LF or CR in `bytes` at or after `start`; `bytes.count` when there is none.
    ///
    /// Asks the C library's vectorised `memchr` for the first LF, then for a CR before it,
    /// within one longest line: beyond that only the line's end is read, and a file whose lines
    /// end in CR alone is not searched to the end of the chunk for an LF on every line.
    private static func terminator(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let base = bytes.baseAddress.unsafelyUnwrapped
        let windowEnd = min(bytes.count, start + maximumLineLength + 1)
        var end = windowEnd
        if let lineFeed = memchr(base + start, 10, windowEnd - start) {
            end = UnsafeRawPointer(lineFeed) - UnsafeRawPointer(base)
        }
        if let carriageReturn = memchr(base + start, 13, end - start) {
            return UnsafeRawPointer(carriageReturn) - UnsafeRawPointer(base)
        }
        return end < windowEnd || windowEnd == bytes.count ? end : wordTerminator(in: bytes, from: windowEnd)
    }

    /// ``terminator(in:from:)`` eight bytes at a time, past the window of an over-long line.
    private static func wordTerminator(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < bytes.count {
            let word = ByteWord(bytes, at: index, end: bytes.count)
            let ends = word.matching(10) | word.matching(13)
            if ends != 0 { return index &+ ends.trailingZeroBitCount / 8 }
            index &+= 8
        }
        return bytes.count
    }

    /// Decodes a whole buffer (tests, small inputs) and ends the stream.
    public mutating func decodeAll(_ bytes: some Collection<UInt8>, _ emit: (FixReport) -> Void) {
        Array(bytes).withUnsafeBytes { decode($0, emit) }
        finish(emit)
    }

    /// Ends the stream: decodes a last line without terminator and the last epoch.
    public mutating func finish(_ emit: (FixReport) -> Void) {
        if !pending.isEmpty {
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * NMEAFields.capacity) { bounds in
                readPending(bounds: bounds, emit)
            }
        }
        overLong = false
        var fixes = 0
        assembler.finish { event in
            if case .fix = event { fixes += 1 }
            emit(event)
        }
        statistics.fixes += fixes
    }

    private mutating func line(
        _ line: UnsafeBufferPointer<UInt8>, bounds: UnsafeMutableBufferPointer<Int32>, _ emit: (FixReport) -> Void
    ) {
        guard let first = line.first else { return }
        if first == UInt8(ascii: "#") {
            statistics.comments += 1
            return
        }
        switch NMEAParser.read(line, bounds: bounds) {
        case .fields(let fields, let type, let talker, let count):
            statistics.sentences += 1
            var fixes = 0
            let decoded = add(fields, type, talker: talker, count: count) { event in
                if case .fix = event { fixes += 1 }
                emit(event)
            }
            if !decoded { statistics.malformedSentences += 1 }
            statistics.fixes += fixes
        case .unknown:
            statistics.sentences += 1
            statistics.unknownSentences += 1
        case .undecoded(let setsData):
            statistics.sentences += 1
            statistics.unknownSentences += 1
            other(setsData: setsData, emit)
        case .malformed:
            statistics.sentences += 1
            statistics.malformedSentences += 1
            other(setsData: false, emit)
        case .badChecksum:
            statistics.badChecksums += 1
        case .notNMEA:
            statistics.droppedLines += 1
        }
    }

    /// A sentence not decoded (unknown type, too few fields), which still takes its place
    /// in the reporting cycle, as in gpsd.
    private mutating func other(setsData: Bool, _ emit: (FixReport) -> Void) {
        var fixes = 0
        assembler.addOther(setsData: setsData) { event in
            if case .fix = event { fixes += 1 }
            emit(event)
        }
        statistics.fixes += fixes
    }

    /// Decodes a sentence's fields and hands it to the assembler as its own type, never
    /// built into an ``NMEASentence`` (copying that enum cost more than decoding the fields);
    /// false when the fields do not fit the type (what ``NMEAParser/body(_:_:count:)`` calls malformed).
    private mutating func add(
        _ fields: NMEAFields, _ type: NMEAParser.SentenceType, talker: NMEATalker, count: Int,
        _ emit: (FixReport) -> Void
    ) -> Bool {
        switch type {
        case .gga: assembler.add(NMEAParser.gga(fields), talker: talker, emit)
        case .rmc: assembler.add(NMEAParser.rmc(fields), emit)
        case .gll: assembler.add(NMEAParser.gll(fields), emit)
        case .gsa: assembler.add(NMEAParser.gsa(fields, count: count), talker: talker, emit)
        case .gsv:
            guard let gsv = NMEAParser.gsv(fields, count: count) else { return false }
            assembler.add(gsv, emit)
        case .vtg: assembler.add(NMEAParser.vtg(fields), emit)
        case .gns: assembler.add(NMEAParser.gns(fields), emit)
        case .zda: assembler.add(NMEAParser.zda(fields), emit)
        case .gst: assembler.add(NMEAParser.gst(fields), emit)
        case .gbs: assembler.add(NMEAParser.gbs(fields), emit)
        case .dbt: assembler.add(NMEASentence.DBT(), emit)
        }
        return true
    }
}
