import Foundation
import LocationTestSupport
import Testing

@testable import LocationFormats
@testable import LocationProviders
@testable import LocationState

/// Decodes `text` in one go and returns the events and the counts.
func decodeNMEA(_ text: String, options: NMEAEpochAssembler.Options = .init()) -> ([ProviderEvent], NMEAStatistics) {
    var decoder = NMEADecoder(options: options)
    var events: [ProviderEvent] = []
    decoder.decodeAll(Array(text.utf8)) { events.append(ProviderEvent($0)) }
    return (events, decoder.statistics)
}

/// Decodes `bytes` with a fresh decoder, handing it `chunkSize` bytes at a time.
func decodeNMEA(_ bytes: [UInt8], chunkSize: Int) -> ([ProviderEvent], NMEAStatistics) {
    var decoder = NMEADecoder()
    var events: [ProviderEvent] = []
    for start in stride(from: 0, to: bytes.count, by: chunkSize) {
        bytes[start..<min(start + chunkSize, bytes.count)].withUnsafeBytes {
            decoder.decode($0) { events.append(ProviderEvent($0)) }
        }
    }
    decoder.finish { events.append(ProviderEvent($0)) }
    return (events, decoder.statistics)
}

/// The fixes among `events`.
func fixes(_ events: [ProviderEvent]) -> [Location] {
    events.compactMap { event in
        if case .fix(let location) = event { location } else { nil }
    }
}

/// Three epochs of a typical receiver: RMC, GGA, GSA per second, on 2024-03-05.
let threeEpochs = [
    nmea("GPRMC,120000.00,A,5230.0000,N,01322.0000,E,10.0,90.0,050324,,,A"),
    nmea("GPGGA,120000.00,5230.0000,N,01322.0000,E,1,07,1.2,35.5,M,39.8,M,,"),
    nmea("GPGSA,A,3,01,02,03,04,05,06,07,,,,,,2.0,1.2,1.6"),
    nmea("GPRMC,120001.00,A,5230.0000,N,01322.0100,E,10.5,91.0,050324,,,A"),
    nmea("GPGGA,120001.00,5230.0000,N,01322.0100,E,1,07,1.2,35.7,M,39.8,M,,"),
    nmea("GPGSA,A,3,01,02,03,04,05,06,07,,,,,,2.0,1.2,1.6"),
    nmea("GPRMC,120002.00,A,5230.0000,N,01322.0200,E,11.0,92.0,050324,,,A"),
    nmea("GPGGA,120002.00,5230.0000,N,01322.0200,E,1,07,1.2,35.9,M,39.8,M,,"),
    nmea("GPGSA,A,3,01,02,03,04,05,06,07,,,,,,2.0,1.2,1.6"),
]

@Suite(.timeLimit(.minutes(10)))
struct NMEADecoderTests {
    @Test(arguments: ["\r\n", "\n", "\r"])
    func lineEndingsDoNotMatter(_ ending: String) {
        let (events, statistics) = decodeNMEA(threeEpochs.joined(separator: ending) + ending)
        #expect(fixes(events).count == 3)
        #expect(statistics.sentences == 9)
        #expect(statistics.droppedLines == 0)
    }

    @Test func oneFixPerEpochMergesEverySentence() throws {
        let (events, _) = decodeNMEA(threeEpochs.joined(separator: "\r\n"))
        let fix = try #require(fixes(events).first)
        #expect(fix.time == Date(timeIntervalSince1970: 1_709_640_000))
        #expect(fix.mode == .threeD)
        #expect(fix.lat == 52.5)
        #expect(abs((fix.lon ?? 0) - (13 + 22.0 / 60)) < 1e-12)
        #expect(abs((fix.speed ?? 0) - 10 * 1852 / 3600) < 1e-9)
        #expect(fix.track == 90)
        #expect(fix.altMSL == 35.5)
        #expect(fix.geoidSep == 39.8)
        #expect(abs((fix.altHAE ?? 0) - 75.3) < 1e-9)
        #expect(fix.satellitesUsed == 7)
        #expect(fix.hdop == 1.2)
        #expect(abs((fix.eph ?? 0) - 1.2 * 19) < 1e-9)
        #expect(abs((fix.epv ?? 0) - 1.6 * 23) < 1e-9)
        #expect(fix.status == 1)
        #expect(fix.source == .replay)
        #expect(abs((fixes(events)[1].climb ?? 0) - 0.2) < 1e-9)
    }

    @Test func chunkBoundariesDoNotMatter() {
        let text = "# a comment\r\n" + threeEpochs.joined(separator: "\r\n") + "\r\n"
        let (whole, _) = decodeNMEA(text)
        for size in [1, 2, 7, 64] {
            let (events, statistics) = decodeNMEA(Array(text.utf8), chunkSize: size)
            #expect(events == whole, "chunks of \(size) bytes")
            #expect(statistics.comments == 1)
        }
    }

    @Test func overLongLineIsDroppedAndTheNextLineIsRead() {
        let long = String(repeating: "A", count: 10 << 20)
        let text = threeEpochs[0] + "\n" + long + "\n" + threeEpochs[1...].joined(separator: "\n") + "\n"
        let (events, statistics) = decodeNMEA(text)
        #expect(statistics.droppedLines == 1)
        #expect(statistics.sentences == 9)
        #expect(fixes(events).count == 3)
    }

    /// A receiver that sends a binary protocol beside NMEA (u-blox's UBX, as `gpspipe -R`
    /// records it) can put more than a longest line of bytes without a line end before a
    /// sentence: the sentence at the line's end is read, as gpsd reads it, however the
    /// stream is cut into chunks; noise with no sentence after it is still dropped.
    @Test(arguments: [600, 5000, 70_000])
    func aSentenceAfterLongBinaryNoiseIsRead(noise: Int) {
        let binary = (0..<noise).map { UInt8(0x80 | ($0 * 37 % 128)) }
        var bytes: [UInt8] = []
        for (index, line) in threeEpochs.enumerated() {
            if index % 3 == 0 { bytes += binary }
            bytes += Array(line.utf8) + [13, 10]
        }
        bytes += binary + [10]
        let (whole, _) = decodeNMEA(threeEpochs.joined(separator: "\r\n") + "\r\n")
        for size in [1, 7, 512, 513, 4096, 1 << 16] {
            let (events, statistics) = decodeNMEA(bytes, chunkSize: size)
            #expect(events == whole, "noise of \(noise) bytes, chunks of \(size) bytes")
            #expect(statistics.sentences == 9)
            #expect(statistics.droppedLines == 1, "the noise at the end")
        }
    }

    @Test(arguments: ["\n", "\r", "\r\n"])
    func linesAroundTheLongestKeptLengthAreFramedAlike(_ ending: String) {
        // The terminator search looks one longest line ahead, then goes on eight bytes at a time.
        let sentence = threeEpochs[0]
        let lengths = [512, 513, 514, 600, 2000]
        let text = lengths.map { length in
            sentence + String(repeating: " ", count: length - sentence.utf8.count) + ending + threeEpochs[1] + ending
        }.joined()
        let (_, statistics) = decodeNMEA(text)
        #expect(statistics.droppedLines == 4)
        #expect(statistics.sentences == 1 + lengths.count)
    }

    @Test func overLongLineWithoutNewlineAtTheEndIsDroppedOrItsSentenceRead() {
        var decoder = NMEADecoder()
        let chunk = [UInt8](repeating: 0xFF, count: 1 << 16)
        for _ in 0..<160 { chunk.withUnsafeBytes { decoder.decode($0) { _ in } } }
        var events: [ProviderEvent] = []
        decoder.finish { events.append(ProviderEvent($0)) }
        #expect(events.isEmpty)
        #expect(decoder.statistics.droppedLines == 1)
        #expect(decoder.statistics.sentences == 0)

        decoder = NMEADecoder()
        for _ in 0..<160 { chunk.withUnsafeBytes { decoder.decode($0) { _ in } } }
        Array(threeEpochs[0].utf8).withUnsafeBytes { decoder.decode($0) { _ in } }
        decoder.finish { events.append(ProviderEvent($0)) }
        #expect(fixes(events).count == 1)
        #expect(decoder.statistics.droppedLines == 0)
        #expect(decoder.statistics.sentences == 1)
    }

    @Test func badChecksumsAndUnknownSentencesAreCountedAndSkipped() {
        var lines = threeEpochs
        lines[3] = String(lines[3].dropLast(2)) + "00"
        lines.insert(nmea("PGRME,15.0,M,45.0,M,25.0,M"), at: 2)
        let (events, statistics) = decodeNMEA(lines.joined(separator: "\n"))
        #expect(statistics.badChecksums == 1)
        #expect(statistics.unknownSentences == 1)
        #expect(statistics.sentences == 9)
        #expect(fixes(events).count == 3)
    }

    @Test func randomBytesInventNoFix() {
        var generator = SplitMix64(seed: 42)
        let bytes = (0..<1_000_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        var decoder = NMEADecoder()
        var events: [ProviderEvent] = []
        decoder.decodeAll(bytes) { events.append(ProviderEvent($0)) }
        #expect(fixes(events).isEmpty)
        #expect(decoder.statistics.droppedLines > 0)
    }

    @Test func emptyInputGivesNothing() {
        let (events, statistics) = decodeNMEA("")
        #expect(events.isEmpty)
        #expect(statistics == NMEAStatistics())
    }
}
