import Foundation

/// A `Codable` type whose JSON shape Molt records in the schema: every ``StoredAsJSON`` type, and the types
/// nested in one that declare their shape.
///
/// The default ``valueShape`` walks the type's `init(from:)` with a decoder that records what it asks for:
/// the keys it decodes (a `decodeIfPresent` one is optional), their types, nested values and arrays, and the
/// cases of a `String` enum that is `CaseIterable`. A type it cannot walk (an enum with associated values, a
/// `String` enum that is not `CaseIterable`, a decoder that checks the values it reads) is ``ValueShape/opaque``:
/// recorded, never checked. Such a type declares its shape:
///
/// ```swift
/// enum Unit: String, Codable, ShapedValue {
///     case grams = "g", millilitres = "ml"
///     static var valueShape: ValueShape { .cases(["g", "ml"]) }
/// }
/// struct Ingredient: StoredAsJSON { var name: String; var amount: Double; var unit: Unit }
/// Ingredient.valueShape   // .object([name: string, amount: double, unit: one of g, ml])
/// ```
public protocol ShapedValue: Codable {
    /// The shape of the type's JSON. The default walks `init(from:)`; declare it for a type the walk cannot
    /// follow.
    static var valueShape: ValueShape { get }
}

extension ShapedValue {
    /// The shape found by walking the type's `init(from:)`, or ``ValueShape/opaque`` when it cannot be walked.
    public static var valueShape: ValueShape { ValueShape(probing: Self.self) }
}

extension ValueShape {
    /// The shape of `type`'s JSON, found by walking its `init(from:)`; ``opaque`` when the walk fails.
    ///
    /// ```swift
    /// struct Ingredient: Codable { var name: String; var grams: Int?; var tags: [String] }
    /// ValueShape(probing: Ingredient.self)
    /// // .object([.init("name", .string), .init("grams", .int, .optional), .init("tags", .array(.string))])
    /// ```
    ///
    /// - Parameter type: The type whose decoder is walked.
    public init<T: Decodable>(probing type: T.Type) {
        self = (try? ShapeProbe.probe(type, declared: false).shape) ?? .opaque
    }

    /// A JSON value of this shape (empty text, zero, the first case, every field), for decoding an instance of
    /// a type that declares its shape; nil for an opaque shape.
    func sample() -> Any? {
        switch self {
        case .string, .data: return ""
        case .int, .double, .decimal, .date: return 0
        case .bool: return false
        case .uuid: return "00000000-0000-0000-0000-000000000000"
        case .array: return [Any]()
        case .dictionary: return [String: Any]()
        case .cases(let cases): return cases.first
        case .opaque: return nil
        case .object(let fields):
            var object: [String: Any] = [:]
            for field in fields {
                guard let value = field.shape.sample() else { return nil }
                object[field.name] = value
            }
            return object
        }
    }
}

extension StoredAsJSON {
    /// The stored shape of a JSON value: its ``ShapedValue/valueShape``.
    public static var storedShape: ValueShape? { valueShape }
}
