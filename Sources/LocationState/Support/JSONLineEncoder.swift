/// Encodes an `Encodable` value as one line of JSON, with its members in the order the
/// value encodes them: locationd's answers put `"class"` first, as gpsd's do, and
/// Foundation's `JSONEncoder` orders members as a dictionary does. Strings go through
/// the one escaper (`ByteWriter.jsonString(_:)`), numbers as Swift prints them
/// (shortest form; integral values without a fraction).
///
/// - Throws: `EncodingError.invalidValue` for a non-finite number.
public struct JSONLineEncoder: Sendable {
    public init() {}

    /// `value` as one line of JSON, without a newline.
    public func encode(_ value: some Encodable) throws -> String {
        let root = Node()
        try root.encode(value, codingPath: [])
        var out = ""
        root.write(to: &out)
        return out
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
    /// One JSON value being built: a scalar written out already, an object or an array.
    fileprivate final class Node {
        enum Content {
            case scalar(String)
            case object([(key: String, node: Node)])
            case array([Node])
        }

        var content = Content.scalar("null")

        /// Makes this node `value`: a scalar at once, anything else through its `encode(to:)`.
        func encode(_ value: some Encodable, codingPath: [any CodingKey]) throws {
            switch value {
            case let text as String: content = .scalar(text.jsonQuoted)
            case let flag as Bool: content = .scalar(flag ? "true" : "false")
            case let number as Double: content = .scalar(try Self.number(number, codingPath))
            case let number as Float: content = .scalar(try Self.number(Double(number), codingPath))
            case let number as any BinaryInteger: content = .scalar("\(number)")
            default: try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
            }
        }

        private static func number(_ value: Double, _ codingPath: [any CodingKey]) throws -> String {
            guard value.isFinite else {
                throw EncodingError.invalidValue(
                    value, EncodingError.Context(codingPath: codingPath, debugDescription: "not a finite number"))
            }
            if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
            return "\(value)"
        }

        // Members and elements are appended in place: the array is taken out of `content`
        // first, so that it is not copied for each one.
        func append(key: String) -> Node {
            let child = Node()
            guard case .object(var members) = content else {
                content = .object([(key, child)])
                return child
            }
            content = .scalar("")
            members.append((key, child))
            content = .object(members)
            return child
        }

        func appendElement() -> Node {
            let child = Node()
            guard case .array(var elements) = content else {
                content = .array([child])
                return child
            }
            content = .scalar("")
            elements.append(child)
            content = .array(elements)
            return child
        }

        func write(to out: inout String) {
            switch content {
            case .scalar(let text): out += text
            case .object(let members):
                out += "{"
                for (index, member) in members.enumerated() {
                    if index > 0 { out += "," }
                    out.appendJSONQuoted(member.key)
                    out += ":"
                    member.node.write(to: &out)
                }
                out += "}"
            case .array(let elements):
                out += "["
                for (index, element) in elements.enumerated() {
                    if index > 0 { out += "," }
                    element.write(to: &out)
                }
                out += "]"
            }
        }
    }

    fileprivate struct NodeEncoder: Encoder {
        let node: Node
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
            if case .object = node.content {} else { node.content = .object([]) }
            return KeyedEncodingContainer(KeyedContainer(node: node, codingPath: codingPath))
        }

        func unkeyedContainer() -> any UnkeyedEncodingContainer {
            if case .array = node.content {} else { node.content = .array([]) }
            return UnkeyedContainer(node: node, codingPath: codingPath)
        }

        func singleValueContainer() -> any SingleValueEncodingContainer {
            SingleValueContainer(node: node, codingPath: codingPath)
        }
    }

    fileprivate struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil(forKey key: Key) throws { _ = node.append(key: key.stringValue) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            try node.append(key: key.stringValue).encode(value, codingPath: codingPath + [key])
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type, forKey key: Key
        ) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: node.append(key: key.stringValue), codingPath: codingPath + [key])
                .container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.append(key: key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node, codingPath: codingPath) }

        mutating func superEncoder(forKey key: Key) -> any Encoder {
            NodeEncoder(node: node.append(key: key.stringValue), codingPath: codingPath + [key])
        }
    }

    fileprivate struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]
        var count: Int {
            if case .array(let elements) = node.content { elements.count } else { 0 }
        }

        mutating func encodeNil() throws { _ = node.appendElement() }

        mutating func encode<T: Encodable>(_ value: T) throws {
            try node.appendElement().encode(value, codingPath: codingPath)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(
            keyedBy keyType: NestedKey.Type
        ) -> KeyedEncodingContainer<NestedKey> {
            NodeEncoder(node: node.appendElement(), codingPath: codingPath).container(keyedBy: keyType)
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            NodeEncoder(node: node.appendElement(), codingPath: codingPath).unkeyedContainer()
        }

        mutating func superEncoder() -> any Encoder { NodeEncoder(node: node.appendElement(), codingPath: codingPath) }
    }

    fileprivate struct SingleValueContainer: SingleValueEncodingContainer {
        let node: Node
        let codingPath: [any CodingKey]

        mutating func encodeNil() throws { node.content = .scalar("null") }

        mutating func encode<T: Encodable>(_ value: T) throws { try node.encode(value, codingPath: codingPath) }
    }
}
