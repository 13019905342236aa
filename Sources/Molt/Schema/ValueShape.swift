/// The shape of the JSON a `Codable` value is stored as (a ``StoredAsJSON`` property): its fields, their types
/// and whether they may be missing, nested values, arrays and enum cases.
///
/// A string attribute that stores such values records the shape in the schema (``Attribute/shape``) and its
/// snapshot, so that a change of the Swift type is a change of the schema: ``SchemaDiff`` lists it, and a
/// migration to a shape the stored values might not have (a required field added, a type changed, an enum case
/// removed) decodes every stored value against the new shape before it commits, refusing the migration, naming
/// the object and the field, if one does not fit.
///
/// Typed models derive the shape of their `StoredAsJSON` properties (``ShapedValue/valueShape``); a dynamic
/// schema states it:
///
/// ```swift
/// Attribute("main", .string, shape: .object([
///     .init("name", .string),
///     .init("grams", .int),
///     .init("unit", .cases(["g", "ml"]), .optional),
/// ]))
/// ```
public indirect enum ValueShape: Hashable, Sendable {
    /// JSON text.
    case string
    /// A JSON number without a fraction (any Swift integer type).
    case int
    /// A JSON number (`Double`, `Float`).
    case double
    /// A JSON number kept as decimal digits (`Decimal`).
    case decimal
    /// `true` or `false`.
    case bool
    /// A date as `JSONEncoder` writes it by default: a number of seconds since 2001-01-01.
    case date
    /// Bytes as `JSONEncoder` writes them by default: Base64 text.
    case data
    /// A UUID as text.
    case uuid
    /// A JSON array whose elements have the shape.
    case array(ValueShape)
    /// A JSON object with any keys, whose values have the shape (a Swift dictionary keyed by strings).
    case dictionary(ValueShape)
    /// A JSON object with these fields (a struct, a class).
    case object([Field])
    /// Text that is one of these raw values (a `String` enum).
    case cases([String])
    /// A shape Molt cannot know (the type's decoder could not be walked): recorded, never checked. Declare the
    /// type's ``ShapedValue/valueShape`` to have it checked.
    case opaque

    /// Whether a field may be missing from a stored value.
    public enum Presence: String, Hashable, Sendable, Codable {
        /// Every value holds the field.
        case required
        /// A value may lack the field or hold null (a Swift optional).
        case optional
        /// A value may lack the field; the type's decoder then gives it a default.
        case defaulted
    }

    /// A field of an ``object(_:)`` shape.
    public struct Field: Hashable, Sendable {
        /// The field's key in the JSON.
        public var name: String
        /// The shape of its value.
        public var shape: ValueShape
        /// Whether a value may lack it.
        public var presence: Presence

        /// A field.
        ///
        /// ```swift
        /// ValueShape.Field("grams", .int)
        /// ValueShape.Field("note", .string, .optional)
        /// ```
        ///
        /// - Parameters:
        ///   - name: The field's key in the JSON.
        ///   - shape: The shape of its value.
        ///   - presence: Whether a value may lack it. Defaults to ``Presence/required``.
        public init(_ name: String, _ shape: ValueShape, _ presence: Presence = .required) {
            self.name = name
            self.shape = shape
            self.presence = presence
        }
    }

    /// The shape's name as the snapshot, the diff and errors write it: `int`, `[string]`, `{name, grams}`,
    /// `one of g, ml`.
    public var name: String {
        switch self {
        case .string: "string"
        case .int: "int"
        case .double: "double"
        case .decimal: "decimal"
        case .bool: "bool"
        case .date: "date"
        case .data: "data"
        case .uuid: "uuid"
        case .opaque: "opaque"
        case .array(let element): "[\(element.name)]"
        case .dictionary(let value): "[string: \(value.name)]"
        case .object(let fields): "{\(fields.map(\.name).joined(separator: ", "))}"
        case .cases(let cases): "one of \(cases.joined(separator: ", "))"
        }
    }

    /// The same shape with the fields of every object sorted by name and the cases of every enum sorted: the
    /// order a Swift type declares them in is not part of its JSON, so reordering them changes no schema.
    public var normalized: ValueShape {
        switch self {
        case .array(let element): .array(element.normalized)
        case .dictionary(let value): .dictionary(value.normalized)
        case .cases(let cases): .cases(cases.sorted())
        case .object(let fields):
            .object(
                fields.map { ValueShape.Field($0.name, $0.shape.normalized, $0.presence) }.sorted { $0.name < $1.name })
        default: self
        }
    }

    /// The shape's fields when it is an object.
    var fields: [Field]? {
        if case .object(let fields) = self { return fields }
        return nil
    }

    /// Whether every value of `old` is a value of this shape, as far as the two shapes tell: the same shape, an
    /// integer where a number is expected, or an object with fewer required fields.
    func acceptsEveryValue(of old: ValueShape) -> Bool {
        switch (old, self) {
        case (_, .opaque): return true
        case (.opaque, _): return false
        case (.int, .double), (.int, .decimal), (.double, .decimal): return true
        case (.array(let a), .array(let b)), (.dictionary(let a), .dictionary(let b)):
            return b.acceptsEveryValue(of: a)
        case (.cases(let a), .cases(let b)): return Set(a).isSubset(of: b)
        case (.cases, .string): return true
        case (.object(let a), .object(let b)):
            let oldFields = Dictionary(a.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            return b.allSatisfy { field in
                guard let before = oldFields[field.name] else { return field.presence != .required }
                if before.presence != .required && field.presence == .required { return false }
                return field.shape.acceptsEveryValue(of: before.shape)
            }
        default: return old == self
        }
    }
}
