/// A stored property of an entity: a name, a type, optionality and an optional default.
///
/// ```swift
/// Attribute("title", .string)                              // required
/// Attribute("subtitle", .string, isOptional: true)         // optional
/// Attribute("count", .int, default: 100)                   // required, existing objects get 100
/// Attribute("title", .string, originalName: "memoTitle")   // renamed: data kept
/// Attribute("main", .string, shape: .object([.init("name", .string)]))   // a Codable value stored as JSON
/// ```
public struct Attribute: Hashable, Sendable {
    /// The attribute's name, also its column name.
    public var name: String
    /// The type of its values.
    public var type: AttributeType
    /// Whether the attribute may hold `null`.
    public var isOptional: Bool
    /// The value given to new objects that set none, and to existing objects when the attribute is added or made
    /// required by a migration.
    ///
    /// A value of another type that converts without loss (`3` for a double, `1` for a bool, UUID text for a
    /// uuid) is kept in the attribute's own type, so that the schema equals its snapshot read back.
    public var defaultValue: Value? {
        didSet { defaultValue = normalizedDefault(defaultValue) }
    }
    /// The attribute's name in the previous schema version, when it was renamed.
    public var originalName: String?
    /// For a string attribute that stores `Codable` values as JSON (``StoredAsJSON``): the shape of those values,
    /// which migrations check stored values against (see ``ValueShape``); nil for plain text. Kept
    /// ``ValueShape/normalized``, so that the order of a type's fields is not part of the schema.
    public var shape: ValueShape? {
        didSet { if shape != shape?.normalized { shape = shape?.normalized } }
    }

    /// Creates an attribute.
    ///
    /// - Parameters:
    ///   - name: The attribute's name.
    ///   - type: The type of its values.
    ///   - isOptional: Whether it may hold `null`. Defaults to `false`.
    ///   - defaultValue: The value for objects that set none. Defaults to none.
    ///   - shape: For a string attribute that stores `Codable` values as JSON, the shape of those values.
    ///   - originalName: Its name in the previous schema version, when it was renamed.
    public init(
        _ name: String, _ type: AttributeType, isOptional: Bool = false, default defaultValue: Value? = nil,
        shape: ValueShape? = nil, originalName: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = nil
        self.originalName = originalName
        self.shape = shape?.normalized
        self.defaultValue = normalizedDefault(defaultValue)
    }

    /// `value` in this attribute's type when it converts without loss; nil for null; unchanged otherwise (and
    /// then reported by ``Schema/validate()``).
    private func normalizedDefault(_ value: Value?) -> Value? {
        guard let value, !value.isNull else { return nil }
        return coerce(value) ?? value
    }
}

extension Attribute {
    /// `value` converted to this attribute's type where the conversion is lossless (an integer literal for a
    /// double attribute), or nil when it does not fit.
    package func coerce(_ value: Value) -> Value? {
        switch (value, type) {
        case (.null, _): return isOptional ? .null : nil
        case (.string, .string), (.int, .int), (.double, .double), (.bool, .bool), (.date, .date), (.data, .data),
            (.uuid, .uuid), (.int, .double), (.int, .bool), (.string, .uuid), (.int, .int16), (.int, .int32),
            (.int, .float), (.double, .float), (.int, .decimal), (.decimal, .decimal):
            // The one rule set: NaN is refused, an integer converts to a double only when exact, a sized type
            // takes only the values it holds exactly.
            return ValueConversion.convert(value, to: type)
        default: return nil
        }
    }
}

import Foundation
