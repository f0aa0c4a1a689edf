/// Encodes an `Encodable` value as one line of JSON, with its members in the order the
/// value encodes them: locationd's answers put `"class"` first, as gpsd's do, and
/// Foundation's `JSONEncoder` orders members as a dictionary does. Strings go through
/// the one escaper (`ByteWriter.jsonString(_:)`), numbers as Swift prints them
/// (shortest form; integral values without a fraction).
///
/// The JSON is written as the value encodes it, into one buffer: a member's key and
/// value go out when it is encoded, and an object or array is closed once the
/// `encode(to:)` that opened it returns, or its parent container writes again. A value
/// that encodes nothing, and a member whose value is never written, are `null`. A
/// container written to after it was closed (one kept from `nestedContainer(keyedBy:forKey:)`
/// and filled after a later member began) cannot be written in order, and fails the
/// encoding; synthesized conformances, and every one of locationd's, never do that.
///
/// - Throws: `EncodingError.invalidValue` for a non-finite number, or for a container
///   written to after it was closed.
public struct JSONLineEncoder: Sendable {
    public init() {}

    /// `value` as one line of JSON, without a newline.
    public func encode(_ value: some Encodable) throws -> String {
        let stream = Stream()
        try stream.write(value, codingPath: [])
        stream.close(above: 0)
        if let failure = stream.failure { throw failure }
        return String(decoding: stream.bytes, as: UTF8.self)
    }

    /// `value` as one line of JSON, for a value whose numbers are all finite (a
    /// non-finite number is the one thing that fails): a failure is a programming error.
    public func encodeFinite(_ value: some Encodable) -> String {
        do {
            return try encode(value)
        } catch {
            preconditionFailure("unencodable \(value): \(error)")
        }
    }
}

extension JSONLineEncoder {
    /// The JSON being written, and the objects and arrays open in it, innermost last.
    ///
    /// A value is written into a slot: the root, or a member's or an element's place after
    /// its key and separator. The slot begun last is the only one that can still be filled.
    fileprivate final class Stream {
        /// An object or an array open in the JSON.
        struct Frame {
            /// Which container this is (a container closed and another opened at the same
            /// depth are told apart by it).
            let id: Int
            /// The slot whose value it is.
            let slot: Int
            let isObject: Bool
            /// Members or elements so far.
            var count = 0
        }

        // Unchecked exclusivity: a stream is reached only by the one encoding that made it,
        // on its thread, and no access to a property overlaps another (every method is
        // short and calls out only to write a value, between accesses). The checks were
        // 22% of an encoding's instructions (docs/performance.md, JSON).
        @exclusivity(unchecked) private(set) var bytes: [UInt8] = []
        @exclusivity(unchecked) private(set) var frames: [Frame] = []
        /// The first container written to after it was closed, reported when the encoding ends.
        @exclusivity(unchecked) private(set) var failure: EncodingError?
        @exclusivity(unchecked) private var lastID = 0
        /// The slot begun last, and whether its value has been started.
        @exclusivity(unchecked) private(set) var slot = 0
        @exclusivity(unchecked) private var slotFilled = false

        init() {
            bytes.reserveCapacity(512)
        }

        private func nextID() -> Int {
            lastID += 1
            return lastID
        }

        /// Whether `slot` is the slot begun last and nothing has been written into it.
        func canFill(_ slot: Int) -> Bool { self.slot == slot && !slotFilled }

        /// Writes `null` into the slot begun last if nothing was written into it.
        private func settle() {
            guard !slotFilled else { return }
            slotFilled = true
            bytes.append(contentsOf: "null".utf8)
        }

        /// Closes every container at `depth` or deeper (`depth` 0: all).
        func close(above depth: Int) {
            settle()
            while frames.count > depth {
                bytes.append(frames.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
            }
        }

        /// Opens an object or array as the value of `slot`, at `depth`: the container's id,
        /// or the one already open for that slot. Nil when the slot holds something else
        /// already (recorded as the failure).
        func container(object: Bool, slot: Int, depth: Int, codingPath: [any CodingKey]) -> Int? {
            if frames.count > depth, frames[depth].slot == slot, frames[depth].isObject == object {
                return frames[depth].id
            }
            guard canFill(slot), frames.count == depth else {
                fail(codingPath)
                return nil
            }
            slotFilled = true
            let id = nextID()
            frames.append(Frame(id: id, slot: slot, isObject: object))
            bytes.append(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
            return id
        }

        /// Begins the next member (`key`) or element (nil) of the container `id` at
        /// `depth`: closes what is open inside it, writes the separator and the key, and
        /// begins the entry's slot. False when the container was closed already (recorded
        /// as the failure).
        func beginEntry(of id: Int?, depth: Int, key: String?, codingPath: @autoclosure () -> [any CodingKey]) -> Bool {
            guard let id, frames.count > depth, frames[depth].id == id else {
                fail(codingPath())
                return false
            }
            close(above: depth + 1)
            if frames[depth].count > 0 { bytes.append(UInt8(ascii: ",")) }
            frames[depth].count += 1
            if let key {
                string(key)
                bytes.append(UInt8(ascii: ":"))
            }
            slot = nextID()
            slotFilled = false
            return true
        }

        /// The members or elements the container `id` at `depth` holds so far.
        func count(of id: Int?, depth: Int) -> Int {
            guard let id, frames.count > depth, frames[depth].id == id else { return 0 }
            return frames[depth].count
        }

        /// Writes `value` into the slot begun last: a scalar as it is, anything else
        /// through its `encode(to:)`, whose containers are closed when it returns.
        func write<T: Encodable>(_ value: T, codingPath: @autoclosure () -> [any CodingKey]) throws {
            // The common scalars by their metatype, a pointer comparison; anything else
            // writes itself (the other numbers through ``SingleValueContainer``'s overloads).
            if T.self == String.self {
                string(value as! String)
            } else if T.self == Double.self {
                try number(value as! Double, codingPath())
            } else if T.self == Int.self {
                integer(value as! Int)
            } else if T.self == Bool.self {
                bool(value as! Bool)
            } else {
                let depth = frames.count
                try value.encode(to: Writer(stream: self, slot: slot, depth: depth, codingPath: codingPath()))
                close(above: depth)
            }
        }

        func null() {
            slotFilled = true
            bytes.append(contentsOf: "null".utf8)
        }

        func bool(_ flag: Bool) {
            slotFilled = true
            bytes.append(contentsOf: flag ? "true".utf8 : "false".utf8)
        }

        func integer(_ number: some BinaryInteger) {
            slotFilled = true
            bytes.append(contentsOf: number.description.utf8)
        }

        func number(_ value: Double, _ codingPath: @autoclosure () -> [any CodingKey]) throws {
            guard value.isFinite else {
                throw EncodingError.invalidValue(
                    value, EncodingError.Context(codingPath: codingPath(), debugDescription: "not a finite number"))
            }
            slotFilled = true
            if value == value.rounded(), abs(value) < 1e15 {
                bytes.append(contentsOf: Int64(value).description.utf8)
            } else {
                bytes.append(contentsOf: value.description.utf8)
            }
        }

        /// Writes `text` quoted; marks the slot filled (a key is written before its slot begins).
        func string(_ text: String) {
            slotFilled = true
            if ByteWriter.needsEscape(text) {
                ByteWriter.append(to: &bytes, capacity: ByteWriter.capacity(ofJSONString: text)) { $0.jsonString(text) }
            } else {
                bytes.append(UInt8(ascii: "\""))
                bytes.append(contentsOf: text.utf8)
                bytes.append(UInt8(ascii: "\""))
            }
        }

        /// Records that a container was written to after it was closed (the first time).
        func fail(_ codingPath: [any CodingKey]) {
            guard failure == nil else { return }
            failure = EncodingError.invalidValue(
                codingPath.map(\.stringValue),
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "a container written to after it was closed"))
        }
    }

    /// The `Encoder` of one value: the slot it fills and the depth its container opens at.
    fileprivate struct Writer: Encoder {
        let stream: Stream
        let slot: Int
        let depth: Int
        let codingPath: [any CodingKey]
        /// For a keyed container's `superEncoder()`: that container, which its keyed
        /// containers write into too.
        var shared: Int?
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            let id = shared ?? stream.container(object: true, slot: slot, depth: depth, codingPath: codingPath)
            return KeyedEncodingContainer(KeyedContainer(stream: stream, id: id, depth: depth, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            let id =
                shared == nil ? stream.container(object: false, slot: slot, depth: depth, codingPath: codingPath) : nil
            return UnkeyedContainer(stream: stream, id: id, depth: depth, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(stream: stream, slot: shared == nil ? slot : -1, codingPath: codingPath)
        }
    }

    fileprivate struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let stream: Stream
        /// The object's container; nil when it could not be opened (its writes fail).
        let id: Int?
        let depth: Int
        let codingPath: [any CodingKey]

        private func begin(_ key: Key) -> Bool {
            stream.beginEntry(of: id, depth: depth, key: key.stringValue, codingPath: codingPath + [key])
        }

        mutating func encodeNil(forKey key: Key) throws { if begin(key) { stream.null() } }
        mutating func encode(_ value: Bool, forKey key: Key) throws { if begin(key) { stream.bool(value) } }
        mutating func encode(_ value: String, forKey key: Key) throws { if begin(key) { stream.string(value) } }
        mutating func encode(_ value: Int, forKey key: Key) throws { if begin(key) { stream.integer(value) } }

        mutating func encode(_ value: Double, forKey key: Key) throws {
            if begin(key) { try stream.number(value, codingPath + [key]) }
        }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if begin(key) { try stream.write(value, codingPath: codingPath + [key]) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            _ = begin(key)
            return member(key).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            _ = begin(key)
            return member(key).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            Writer(stream: stream, slot: -1, depth: depth, codingPath: codingPath, shared: id ?? -1)
        }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            _ = begin(key)
            return member(key)
        }

        /// The encoder of the member just begun.
        private func member(_ key: Key) -> Writer {
            Writer(stream: stream, slot: stream.slot, depth: depth + 1, codingPath: codingPath + [key])
        }
    }

    fileprivate struct UnkeyedContainer: UnkeyedEncodingContainer {
        let stream: Stream
        /// The array's container; nil when it could not be opened (its writes fail).
        let id: Int?
        let depth: Int
        let codingPath: [any CodingKey]
        var count: Int { stream.count(of: id, depth: depth) }

        private func begin() -> Bool { stream.beginEntry(of: id, depth: depth, key: nil, codingPath: codingPath) }

        mutating func encodeNil() throws { if begin() { stream.null() } }
        mutating func encode(_ value: Bool) throws { if begin() { stream.bool(value) } }
        mutating func encode(_ value: String) throws { if begin() { stream.string(value) } }
        mutating func encode(_ value: Int) throws { if begin() { stream.integer(value) } }
        mutating func encode(_ value: Double) throws { if begin() { try stream.number(value, codingPath) } }

        mutating func encode<T: Encodable>(_ value: T) throws {
            if begin() { try stream.write(value, codingPath: codingPath) }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            _ = begin()
            return element.container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            _ = begin()
            return element.unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder {
            _ = begin()
            return element
        }

        /// The encoder of the element just begun.
        private var element: Writer {
            Writer(stream: stream, slot: stream.slot, depth: depth + 1, codingPath: codingPath)
        }
    }

    fileprivate struct SingleValueContainer: SingleValueEncodingContainer {
        let stream: Stream
        /// The slot it fills (-1: none, every write fails).
        let slot: Int
        let codingPath: [any CodingKey]

        private func begin() -> Bool {
            // Not fillable: a second value, or one after the slot's container was opened.
            guard stream.canFill(slot) else {
                stream.fail(codingPath)
                return false
            }
            return true
        }

        mutating func encodeNil() throws { if begin() { stream.null() } }
        mutating func encode(_ value: Bool) throws { if begin() { stream.bool(value) } }
        mutating func encode(_ value: String) throws { if begin() { stream.string(value) } }
        mutating func encode(_ value: Double) throws { if begin() { try stream.number(value, codingPath) } }
        mutating func encode(_ value: Float) throws { if begin() { try stream.number(Double(value), codingPath) } }
        mutating func encode(_ value: Int) throws { if begin() { stream.integer(value) } }
        mutating func encode(_ value: Int8) throws { if begin() { stream.integer(value) } }
        mutating func encode(_ value: Int16) throws { if begin() { stream.integer(value) } }
        mutating func encode(_ value: Int32) throws { if begin() { stream.integer(value) } }
        mutating func encode(_ value: Int64) throws { if begin() { stream.integer(value) } }
        mutating func encode(_ value: UInt) throws { if begin() { stream.integer(value) } }
        mutating func encode(_ value: UInt8) throws { if begin() { stream.integer(value) } }
        mutating func encode(_ value: UInt16) throws { if begin() { stream.integer(value) } }
        mutating func encode(_ value: UInt32) throws { if begin() { stream.integer(value) } }
        mutating func encode(_ value: UInt64) throws { if begin() { stream.integer(value) } }

        mutating func encode<T: Encodable>(_ value: T) throws {
            if begin() { try stream.write(value, codingPath: codingPath) }
        }
    }
}
