import CLibXML2

/// libxml2's SAX2 callbacks into a ``GPXParser``, each crossing into Swift kept cheap.
///
/// Two costs every callback would pay otherwise (docs/performance.md, GPX):
/// - A retain and a release of the parser: it is reached unretained, and not retained for
///   the call either. The parser owns the context and frees it in `deinit`, so it is
///   alive whenever the context calls back.
/// - A call for each run of white space between elements: the text callbacks are set in
///   the context's handler only while a field's text is read (``receiveText(_:in:)``),
///   so text nobody reads stays in libxml2.
enum GPXCallbacks {
    /// Sets the parser's callbacks in `handler`, and the parser into its `_private`.
    ///
    /// No user data: libxml2's own SAX2 callbacks (the DTD's) take the context as theirs.
    /// The parser rides in the handler's `_private`, which the context's copy keeps.
    static func install(_ parser: GPXParser, in handler: inout xmlSAXHandler) {
        handler.startElementNs = { context, name, _, _, _, _, attributeCount, _, attributes in
            guard let name else { return }
            GPXCallbacks.with(context) { $0.start(name, attributeCount, attributes) }
        }
        handler.endElementNs = { context, _, _, _ in
            GPXCallbacks.with(context) { $0.end() }
        }
        handler.characters = nil
        handler.cdataBlock = nil
        handler.serror = { context, error in
            guard let error else { return }
            GPXCallbacks.with(context) { $0.failed(error.pointee) }
        }
        handler._private = Unmanaged.passUnretained(parser).toOpaque()
    }

    /// An error libxml2 raised outside any context, to the parser that set this handler
    /// for the thread (its user data).
    static let strayError: xmlStructuredErrorFunc = { parser, error in
        guard let parser, let error else { return }
        Unmanaged<GPXParser>.fromOpaque(parser)._withUnsafeGuaranteedRef { $0.failed(error.pointee, stray: true) }
    }

    /// Hands text (and CDATA) to the parser from now on, or no longer.
    static func receiveText(_ receive: Bool, in context: xmlParserCtxtPtr?) {
        guard let handler = context?.pointee.sax else { return }
        handler.pointee.characters = receive ? characters : nil
        handler.pointee.cdataBlock = receive ? characters : nil
    }

    private static let characters: charactersSAXFunc = { context, characters, count in
        guard let characters else { return }
        GPXCallbacks.with(context) { $0.characters(characters, Int(count)) }
    }

    /// Calls `body` with the parser whose libxml2 context is `context` (a callback's first argument).
    private static func with(_ context: UnsafeMutableRawPointer?, _ body: (GPXParser) -> Void) {
        guard let owner = context?.assumingMemoryBound(to: xmlParserCtxt.self).pointee.sax?.pointee._private
        else { return }
        Unmanaged<GPXParser>.fromOpaque(owner)._withUnsafeGuaranteedRef(body)
    }
}
