extension StringProtocol {
    /// The value as an error message quotes it: whole when short, else its start and its
    /// length, so that a megabyte of garbage in a file gives one readable line.
    package var quotedForMessage: String {
        let limit = 60
        guard count > limit else { return "'\(escapedForTerminal)'" }
        return "'\(prefix(limit).escapedForTerminal)…' (\(utf8.count) bytes)"
    }

    /// The text as it may reach a terminal or a log line: what a terminal would act on
    /// instead of showing (control characters, C1 codes, line separators, bidirectional
    /// overrides) is written out, `\n`, `\r`, `\t`, `\0` or `\u{1B}`; the rest is kept.
    ///
    /// Names, paths and values from files and clients go through this before they are
    /// printed or logged, so that a region called "\u{1B}[2J" cannot clear the screen or
    /// a newline forge a log line.
    public var escapedForTerminal: String {
        guard unicodeScalars.contains(where: Self.needsEscape) else { return String(self) }
        var escaped = ""
        for scalar in unicodeScalars {
            guard Self.needsEscape(scalar) else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case "\0": escaped += "\\0"
            default: escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return escaped
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

extension String {
    /// Bytes meant to be UTF-8, for a terminal: each byte that is not part of valid UTF-8 as
    /// `\xNN`, and the rest as ``StringProtocol/escapedForTerminal``.
    public static func escapedForTerminal(bytes: some Collection<UInt8>) -> String {
        let bytes = Array(bytes)
        if let valid = String(validating: bytes, as: UTF8.self) { return valid.escapedForTerminal }
        var result = ""
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length =
                switch lead {
                case 0..<0x80: 1
                case 0xC2...0xDF: 2
                case 0xE0...0xEF: 3
                case 0xF0...0xF4: 4
                default: 0
                }
            if length > 0, index + length <= bytes.count,
                let scalar = String(validating: bytes[index..<index + length], as: UTF8.self)
            {
                result += scalar.escapedForTerminal
                index += length
            } else {
                result += "\\x" + (lead < 0x10 ? "0" : "") + String(lead, radix: 16, uppercase: true)
                index += 1
            }
        }
        return result
    }
}
