import FuzzSupport
import LocationState

/// libFuzzer entry point: decodes the input as an NMEA stream and checks every fix
/// (``check(_:)``); each line is also parsed on its own.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var decoder = NMEADecoder()
    fuzzDecode(bytes, with: &decoder)
    var lineStart = 0
    for index in 0...bytes.count where index == bytes.count || bytes[index] == 10 {
        _ = NMEAParser.parse(UnsafeBufferPointer(rebasing: bytes[lineStart..<index]))
        lineStart = index + 1
    }
    return 0
}
