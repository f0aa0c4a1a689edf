import FuzzSupport
import LocationState

/// libFuzzer entry point: decodes the input as gpsd JSON reports (`gpspipe -w`) and checks
/// every fix (``check(_:)``).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var decoder = GPSDJSONDecoder()
    fuzzDecode(UnsafeBufferPointer(start: data, count: size), with: &decoder)
    return 0
}
