/// The identifier of a ``Region``: the GeoJSON feature's `id`, else its `properties.id`, else its name.
///
/// Membership is kept by identifier, so a region keeps its state across a reload of
/// the region file as long as its identifier stays the same. Encoded as a plain JSON
/// string, and as a key where it keys a dictionary.
public struct RegionID: Hashable, Comparable, Sendable, Codable, CodingKeyRepresentable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The identifier as written in the region file (a numeric id in its JSON spelling: `7`).
    public let rawValue: String

    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        rawValue = value
    }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var codingKey: any CodingKey { Key(stringValue: rawValue) }

    public init?<T: CodingKey>(codingKey: T) {
        rawValue = codingKey.stringValue
    }

    public var description: String { rawValue }

    public static func < (lhs: RegionID, rhs: RegionID) -> Bool { lhs.rawValue < rhs.rawValue }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
