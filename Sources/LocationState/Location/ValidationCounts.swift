/// How many fixes the validation rejected and how many fields it removed, by field.
public struct ValidationCounts: Sendable, Hashable {
    /// Fixes rejected, by the field that made them impossible.
    public var rejected: [String: Int] = [:]
    /// Fields removed from fixes that were kept, by field.
    public var dropped: [String: Int] = [:]

    public init() {}

    /// Fixes rejected in all.
    public var rejectedFixes: Int { rejected.values.reduce(0, +) }
    /// Fields removed in all.
    public var droppedFields: Int { dropped.values.reduce(0, +) }

    /// Counts what `validation` did.
    public mutating func count(_ validation: FixValidation) {
        if let rejection = validation.rejection { rejected[rejection.field, default: 0] += 1 }
        for problem in validation.dropped { dropped[problem.field, default: 0] += 1 }
    }

    /// Adds `other`'s counts to these.
    public mutating func add(_ other: ValidationCounts) {
        rejected.merge(other.rejected, uniquingKeysWith: +)
        dropped.merge(other.dropped, uniquingKeysWith: +)
    }

    /// What was counted since `earlier`, an earlier reading of the same counts.
    public func since(_ earlier: ValidationCounts) -> ValidationCounts {
        func difference(_ now: [String: Int], _ then: [String: Int]) -> [String: Int] {
            now.reduce(into: [:]) { result, entry in
                let count = entry.value - (then[entry.key] ?? 0)
                if count > 0 { result[entry.key] = count }
            }
        }
        var counts = ValidationCounts()
        counts.rejected = difference(rejected, earlier.rejected)
        counts.dropped = difference(dropped, earlier.dropped)
        return counts
    }

    /// `2 impossible fixes rejected (lat 2), 3 fields dropped (altMSL 2, speed 1)`; the
    /// parts with a count of 0 left out, empty when both are.
    public var summary: String {
        func detail(_ counts: [String: Int]) -> String {
            counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        var parts: [String] = []
        let fixes = rejectedFixes
        if fixes > 0 { parts.append("\(fixes) impossible \(fixes == 1 ? "fix" : "fixes") rejected (\(detail(rejected)))") }
        let fields = droppedFields
        if fields > 0 { parts.append("\(fields) \(fields == 1 ? "field" : "fields") dropped (\(detail(dropped)))") }
        return parts.joined(separator: ", ")
    }
}
