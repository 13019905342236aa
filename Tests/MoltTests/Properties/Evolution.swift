import Foundation
import Molt
import PropertyBased

/// A random schema evolution over random data: one entity at version 0 with a few attributes and objects, then
/// a few versions, each made by one declared change (a rename, an int widened to double, an optional made
/// required with a default, an added or removed attribute, an entity rename).
///
/// The case is drawn as plain numbers and interpreted against the schema it has reached, so that every drawn
/// case is a valid evolution; ``plan()`` gives the schemas and, beside them, the data each version must hold.
struct Evolution: Sendable, CustomStringConvertible {
    /// One drawn value, read according to the type of the attribute it lands in.
    struct RawValue: Sendable {
        var int: Int64
        var double: Double
        var string: String
        var bool: Bool
        var isNull: Bool
    }

    /// One drawn change; `pick` chooses among the attributes it may apply to.
    struct Step: Sendable {
        var kind: Int
        var pick: Int
        var type: Int
        var isOptional: Bool
        var value: RawValue
    }

    /// Version 0's attributes: a type (index into `types`) and whether it is optional.
    var attributes: [(type: Int, isOptional: Bool)]
    /// Version 0's objects, one drawn value per attribute.
    var objects: [[RawValue]]
    var steps: [Step]
    /// Whether the store runs in WAL mode (otherwise a rollback journal).
    var wal: Bool

    static let types: [AttributeType] = [.int, .double, .string, .bool]

    var description: String {
        let attributeText = attributes.map { "\(Self.types[$0.type])\($0.isOptional ? "?" : "")" }.joined(
            separator: ", ")
        let stepText = steps.map {
            "(kind \($0.kind), pick \($0.pick), type \($0.type), optional \($0.isOptional), \($0.value))"
        }
        return
            "attributes [\(attributeText)], \(objects.count) objects \(objects), steps \(stepText), \(wal ? "wal" : "rollback")"
    }

    // MARK: - Generators

    /// Integers around zero, around ±2^53 (where doubles stop being exact) and anywhere.
    static let ints = zip(Gen.int(in: 0...3), Gen.int64(in: -1000...1000), Gen.int64(in: -3...3), Gen.int64()).map {
        (choice: Int, small: Int64, offset: Int64, any: Int64) -> Int64 in
        switch choice {
        case 0, 1: return small
        case 2: return (small < 0 ? -1 : 1) * ((1 << 53) + offset)
        default: return any
        }
    }

    /// Doubles: ordinary ones and the edges SQLite must keep (infinities, negative zero, extremes).
    static let doubles = zip(
        Gen.int(in: 0...5), Gen.double(in: -1e6...1e6),
        Gen.element(of: [Double.infinity, -.infinity, -0.0, 1e300, .leastNonzeroMagnitude, .greatestFiniteMagnitude])
    ).map {
        (choice: Int, ordinary: Double, edge: Double?) -> Double in choice == 0 ? edge ?? 0 : ordinary
    }

    /// Text: letters and digits, or text that quoting and encodings must keep whole.
    static let strings = zip(
        Gen.bool, Gen.letterOrNumber.string(of: 0...8),
        Gen.element(of: ["", " ", "é", "🙂 x", "O'Brien", "a\"b", "NULL", "1", "1.0", "--", "\u{FEFF}z", "\r\n"])
    ).map {
        (ordinary: Bool, text: String, edge: String?) -> String in ordinary ? text : edge ?? ""
    }

    static let rawValues = zip(ints, doubles, strings, Gen.bool, Gen.bool(0.25)).map {
        RawValue(int: $0, double: $1, string: $2, bool: $3, isNull: $4)
    }

    static let stepGenerator = zip(Gen.int(in: 0...6), Gen.int(in: 0...99), Gen.int(in: 0...3), Gen.bool, rawValues).map
    {
        Step(kind: $0, pick: $1, type: $2, isOptional: $3, value: $4)
    }

    /// Evolutions of 1 to 4 versions over 0 to 6 objects of 1 to 4 attributes.
    static let generator = zip(
        zip(Gen.int(in: 0...3), Gen.bool).array(of: 1...4), rawValues.array(of: 4).array(of: 0...6),
        stepGenerator.array(of: 1...4), Gen.bool
    ).map { drawn, objects, steps, wal in
        Evolution(attributes: drawn.map { (type: $0.0, isOptional: $0.1) }, objects: objects, steps: steps, wal: wal)
    }
}
