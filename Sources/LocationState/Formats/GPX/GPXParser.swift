import CLibXML2
import Foundation
import LocationState

/// The state of one GPX document being parsed: the libxml2 push parser's context and the
/// SAX2 callbacks that turn track points into events.
///
/// Not thread-safe; ``GPXDecoder`` keeps it behind a mutex.
///
/// Its state is `@exclusivity(unchecked)`: it is reached only by ``parse(_:terminate:)``
/// and the callbacks libxml2 runs within it, on one thread, and no access to a property
/// spans a call that reaches the same property. The checks were up to 12% of the parsing
/// thread's instructions, the replay's critical path (docs/performance.md, GPX).
package final class GPXParser {
    /// The longest text of a point's field read (a number, a time); a longer one is dropped, as one that does not parse.
    package static let maximumTextLength = 256
    /// The deepest nesting of elements read (libxml2's own limit in its pull parser).
    package static let maximumDepth = 256

    @exclusivity(unchecked) private(set) var statistics = ReplayStatistics(record: .trackPoint)
    private let source: FixSource
    private let device: String?
    @exclusivity(unchecked) private var context: xmlParserCtxtPtr?
    /// Events completed during the current ``parse(_:terminate:)``.
    @exclusivity(unchecked) private var events: [FixReport] = []
    /// Elements open now.
    @exclusivity(unchecked) private var depth = 0
    /// The track point being read, and the depth of its element (0: none is being read).
    ///
    /// Not an optional: testing or changing a `Location?` copies the whole fix, for every
    /// element (docs/performance.md, GPX).
    @exclusivity(unchecked) private var point: Location
    @exclusivity(unchecked) private var pointDepth = 0
    /// Whether the point being read had a `course` (which a `heading` does not replace).
    @exclusivity(unchecked) private var pointHasCourse = false
    /// The field being read (a child of the point whose text is read), the depth of its
    /// element, and its text so far.
    @exclusivity(unchecked) private var field: GPXElement? {
        didSet { GPXCallbacks.receiveText(field != nil, in: context) }
    }
    @exclusivity(unchecked) private var fieldDepth = 0
    @exclusivity(unchecked) private var text: [UInt8] = []
    /// Track points read since the last segment break (or the start).
    @exclusivity(unchecked) private var pointsInSegment = 0
    /// The first fatal error libxml2 raised outside the context during this call into it
    /// (``failed(_:stray:)``), until the call returns.
    private var strayError: String?
    /// The first bytes of the document, kept until there are four to create the context with.
    private var head: [UInt8] = []

    package init(source: FixSource, device: String?) {
        self.source = source
        self.device = device
        point = Location(mode: .twoD, source: source, device: device)
        text.reserveCapacity(GPXParser.maximumTextLength)
    }

    deinit {
        guard let context else { return }
        if let document = context.pointee.myDoc { xmlFreeDoc(document) }
        xmlFreeParserCtxt(context)
    }

    /// Parses the next bytes of the document (`terminate`: the end of it) and returns the
    /// events they completed, in order.
    package func parse(_ bytes: UnsafeRawBufferPointer, terminate: Bool) -> [FixReport] {
        guard statistics.stopReason == nil else { return [] }
        var remaining = bytes
        if context == nil {
            // libxml2 detects the encoding (a BOM, UTF-16) from the first four bytes.
            let taken = min(4 - head.count, remaining.count)
            head += remaining.prefix(taken)
            remaining = UnsafeRawBufferPointer(rebasing: remaining.dropFirst(taken))
            guard head.count == 4 || terminate else { return [] }
            if let problem = GPXParser.libraryProblem {
                statistics.stopReason = problem
                return []
            }
            context = catchingStrayErrors { head.withUnsafeBytes { makeContext($0) } }
            guard context != nil else {
                statistics.stopReason = "libxml2 could not start a parser"
                return []
            }
        }
        if !remaining.isEmpty || terminate {
            let base = remaining.baseAddress?.assumingMemoryBound(to: CChar.self)
            catchingStrayErrors { _ = xmlParseChunk(context, base, Int32(remaining.count), terminate ? 1 : 0) }
            if let stray = strayError {
                // Noted inside libxml2's input buffer, where the parser could not be stopped;
                // the parser has read what was decoded before it. That is where it ends,
                // whatever libxml2 made of the cut (a tag left open).
                strayError = nil
                statistics.stopReason = "\(stray) (line \(xmlSAX2GetLineNumber(context)))"
                xmlStopParser(context)
            }
        }
        if terminate || statistics.stopReason != nil, pointDepth > 0 {
            // Cut short inside a track point.
            statistics[skipped: .malformed] += 1
            pointDepth = 0
            field = nil
        }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    private func makeContext(_ head: UnsafeRawBufferPointer) -> xmlParserCtxtPtr? {
        var handler = xmlSAXHandler()
        // The SAX2 defaults keep the DTD's declarations in a document of their own (for
        // entities), without loading anything: no DTD loading, no entity substitution.
        xmlSAXVersion(&handler, 2)
        handler.startElement = nil
        handler.endElement = nil
        GPXCallbacks.install(self, in: &handler)
        handler.ignorableWhitespace = nil
        handler.reference = nil
        handler.comment = nil
        handler.processingInstruction = nil
        handler.resolveEntity = nil
        handler.externalSubset = nil
        handler.warning = nil
        handler.error = nil
        handler.fatalError = nil
        let context = xmlCreatePushParserCtxt(
            &handler, nil, head.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(head.count), nil)
        guard let context else { return nil }
        xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
        return context
    }

    /// libxml2's soname (Debian's `libxml2`).
    package static let librarySoname = "libxml2.so.2"

    /// libxml2, loaded and set up once for the process before the first parser: nil, or
    /// why it cannot be loaded.
    ///
    /// Loaded at run time, never linked: libxml2 and the ICU it needs cost about 0.9 MiB
    /// of resident memory once mapped, and a daemon that reads no GPX should not pay that.
    private static let libraryProblem: String? = loadLibrary(soname: librarySoname)

    /// Loads libxml2 (see `CLibXML2`): nil, or why it cannot be loaded.
    package static func loadLibrary(soname: String) -> String? {
        var reason = [CChar](repeating: 0, count: 512)
        guard locationd_libxml2_load(soname, &reason, reason.count) == 0 else {
            let detail = reason.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return "reading GPX needs libxml2, which cannot be loaded (\(detail)): install libxml2"
        }
        return nil
    }

    func start(
        _ name: UnsafePointer<xmlChar>, _ attributeCount: Int32,
        _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        depth += 1
        guard depth <= GPXParser.maximumDepth else {
            // libxml2's push parser does not bound nesting itself; its stacks would grow with the file.
            stop("elements nested deeper than \(GPXParser.maximumDepth)")
            return
        }
        let element = GPXElement(localName: name)
        if depth == 1, strcasecmp(name, "gpx") != 0 {
            // A KML, an HTML page, any XML that is not GPX: say so rather than read it as
            // a GPX without a track. (A root in capitals is not GPX's, but read as before.)
            let root = String(decoding: UnsafeBufferPointer(start: name, count: min(strlen(name), 64)), as: UTF8.self)
            stop("not a GPX document, its root element is <\(root)>")
            return
        }
        if pointDepth > 0 {
            guard field == nil else { return }
            switch element {
            case .elevation, .time, .fix, .satellites, .hdop, .vdop, .speed, .course, .heading:
                field = element
                fieldDepth = depth
                text.removeAll(keepingCapacity: true)
            case .trackPoint:
                // A track point inside a track point: the outer one is malformed.
                statistics[skipped: .malformed] += 1
                startPoint(attributeCount, attributes)
            case .segment, .waypoint, .routePoint, .other: break
            }
            return
        }
        switch element {
        case .trackPoint: startPoint(attributeCount, attributes)
        case .segment:
            if pointsInSegment > 0 { events.append(.noFix(nil)) }
            pointsInSegment = 0
        case .waypoint: statistics[skipped: .waypoint] += 1
        case .routePoint: statistics[skipped: .routePoint] += 1
        default: break
        }
    }

    private func startPoint(_ attributeCount: Int32, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        statistics.records += 1
        pointsInSegment += 1
        var location = Location(mode: .twoD, source: source, device: device)
        if let attributes {
            // Five pointers per attribute: local name, prefix, namespace, value start, value end.
            for index in 0..<Int(max(attributeCount, 0)) {
                guard let name = attributes[5 * index], let start = attributes[5 * index + 3],
                    let end = attributes[5 * index + 4], attributes[5 * index + 2] == nil
                else { continue }
                let value = GPXParser.number(UnsafeBufferPointer(start: start, count: end - start))
                if name.isName("lat") {
                    location.lat = value
                } else if name.isName("lon") {
                    location.lon = value
                }
            }
        }
        point = location
        pointDepth = depth
        pointHasCourse = false
        field = nil
    }

    func characters(_ bytes: UnsafePointer<xmlChar>, _ count: Int) {
        guard field != nil else { return }
        guard text.count + count <= GPXParser.maximumTextLength else {
            // Too long for a number or a time: the field is dropped.
            text.removeAll(keepingCapacity: true)
            text.append(0)
            return
        }
        guard text.first != 0 else { return }
        text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
    }

    func end() {
        defer { depth -= 1 }
        if let field, depth == fieldDepth {
            self.field = nil
            read(field)
        } else if depth == pointDepth {
            endPoint()
        }
    }

    /// Puts the text of `field` into the point.
    private func read(_ field: GPXElement) {
        if text.first == 0 {
            // Too long to be a number or a time: dropped as one that does not parse is. The
            // point is kept, so it is not a malformed record.
            if field == .time { statistics.unreadableTimes += 1 }
            return
        }
        text.withUnsafeBufferPointer { read(field, GPXParser.trimmed($0)) }
    }

    /// Puts `text`, the trimmed text of `field`, into the point.
    private func read(_ field: GPXElement, _ text: UnsafeBufferPointer<UInt8>) {
        let value = field == .time || field == .fix ? nil : GPXNumber.parse(text)
        switch field {
        case .elevation:
            point.altMSL = value
            if value != nil, point.mode == .twoD { point.mode = .threeD }
        case .time:
            // A GPX time is optional: one no fix can carry (1901, as converters write) is
            // dropped and counted, and the position kept, as gpxpy keeps a point it cannot date.
            let time = UTCCalendar.parseISO8601(utf8: text, zonelessIsUTC: true)
            if time == nil, !text.isEmpty {
                // Kept without its time, as gpxpy keeps it; counted, so that the summary says so.
                statistics.unreadableTimes += 1
            }
            if let time, !Location.accepts(time: time) {
                statistics.impossibleTimes += 1
                point.time = nil
            } else {
                point.time = time
            }
        case .fix:
            if text.elementsEqual("none".utf8) {
                point.mode = .noFix
            } else if text.elementsEqual("2d".utf8) {
                point.mode = .twoD
            } else if text.elementsEqual("3d".utf8) {
                point.mode = .threeD
            } else if text.elementsEqual("dgps".utf8) {
                point.status = 2
            }
        case .satellites: point.satellitesUsed = value.flatMap { $0 >= 0 && $0 < 1000 ? Int($0) : nil }
        case .hdop: point.hdop = value
        case .vdop: point.epv = value.map { $0 * 23 }
        case .speed: point.speed = value
        case .course:
            point.track = value
            pointHasCourse = true
        // OsmAnd records the course as `heading` (osmand.net, "OsmAnd GPX", details of a
        // track point); a `course` in the same point wins, before it or after.
        case .heading: if !pointHasCourse { point.track = value }
        case .trackPoint, .segment, .waypoint, .routePoint, .other: break
        }
    }

    private func endPoint() {
        guard pointDepth > 0 else { return }
        var location = point
        pointDepth = 0
        field = nil
        if location.mode == .noFix {
            statistics.pointsWithoutFix += 1
            events.append(.noFix(location.time))
            return
        }
        guard let lat = location.lat, let lon = location.lon, abs(lat) <= 90, abs(lon) <= 180 else {
            statistics[skipped: .malformed] += 1
            return
        }
        if location.mode == .twoD { location.altMSL = nil }
        if let hdop = location.hdop { location.eph = hdop * 19 }
        statistics.fixes += 1
        events.append(.fix(location))
    }

    /// A libxml2 error: the first fatal one ends the document.
    ///
    /// - Parameter stray: raised outside the parser's context (``catchingStrayErrors(_:)``),
    ///   from inside libxml2's input buffer, which stopping the parser would free: the
    ///   reason is only noted, and the parser stopped once libxml2 has returned.
    func failed(_ error: xmlError, stray: Bool = false) {
        guard error.level == XML_ERR_FATAL, statistics.stopReason == nil, strayError == nil else { return }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code)"
        let text = message.split(whereSeparator: \.isNewline).first.map(String.init) ?? message
        let reason = "not well-formed XML: \(text.trimmingCharacters(in: .whitespaces))"
        if stray {
            strayError = reason
        } else {
            stop(reason)
        }
    }

    /// Ends the document at the current line, with `reason`.
    private func stop(_ reason: String) {
        guard statistics.stopReason == nil, let context else { return }
        statistics.stopReason = "\(reason) (line \(xmlSAX2GetLineNumber(context)))"
        xmlStopParser(context)
    }

    /// Runs `body`, a call into libxml2, with the errors libxml2 raises outside any parser
    /// context taken as this parser's (``failed(_:stray:)``). Bytes that the document's
    /// encoding cannot convert (a broken UTF-16 surrogate) are one: libxml2 would print
    /// them on stderr (`encoding error : input conversion failed…`, `I/O error : encoder
    /// error`) and end the parse without a word to its handler. Its handler for them is
    /// the calling thread's own, and is cleared again before this returns.
    private func catchingStrayErrors<Result>(_ body: () -> Result) -> Result {
        xmlSetStructuredErrorFunc(Unmanaged.passUnretained(self).toOpaque(), GPXCallbacks.strayError)
        defer { xmlSetStructuredErrorFunc(nil, nil) }
        return body()
    }

    /// The bytes without surrounding XML white space.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 32 || byte == 9 || byte == 10 || byte == 13 }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return UnsafeBufferPointer(start: bytes.baseAddress, count: 0) }
        return UnsafeBufferPointer(rebasing: bytes[first...last])
    }

    /// A finite decimal number, with surrounding white space; nil otherwise.
    private static func number(_ bytes: UnsafeBufferPointer<xmlChar>) -> Double? {
        GPXNumber.parse(trimmed(bytes))
    }
}
